#include "actors/tools/mcp_http.hpp"

#include "actors/tools/http_fetch.hpp"
#include "actors/tools/mcp_frames.hpp"

namespace nb {

namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;

} // namespace

mcp_http::mcp_http(const mcp_server_settings& cfg, ssrf_policy policy)
  : url_(cfg.url), headers_(cfg.headers), policy_(std::move(policy)) {
  // nop
}

std::string mcp_http::post(const json& msg, const json& id,
                           steady::time_point deadline, json& reply) {
  // Rounded up to whole seconds (http_send's unit): a toolTimeout of 1 s
  // must not round down to nothing.
  auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                   deadline - steady::now())
                   .count();
  if (left_ms <= 0)
    return "timed out waiting for the MCP server";
  auto left = (left_ms + 999) / 1000;
  http_request req;
  req.method = "POST";
  req.url = url_;
  req.headers = headers_;
  req.headers["Accept"] = "application/json, text/event-stream";
  if (!session_id_.empty())
    req.headers["Mcp-Session-Id"] = session_id_;
  if (!protocol_.empty())
    req.headers["MCP-Protocol-Version"] = protocol_;
  req.content_type = "application/json";
  req.body = msg.dump();
  req.timeout_s = static_cast<int>(left);
  req.max_bytes = 16u * 1024 * 1024;
  req.max_redirects = 0;
  auto res = http_send(req, policy_);
  if (!res.error.empty()) {
    if (res.error.find("timed out") == std::string::npos)
      alive_ = false;
    return res.error.find("timed out") != std::string::npos
             ? "timed out waiting for the MCP server"
             : res.error;
  }
  if (auto sid = res.headers.find("mcp-session-id"); sid != res.headers.end())
    session_id_ = sid->second;
  if (res.status == 404 && !session_id_.empty()) {
    alive_ = false; // the server forgot the session: start over
    return "the MCP session expired";
  }
  if (res.status == 202 || id.is_null())
    return res.status < 300 ? std::string{}
                            : "HTTP " + std::to_string(res.status);
  if (res.status != 200)
    return "HTTP " + std::to_string(res.status);
  std::vector<json> msgs;
  if (res.content_type.find("text/event-stream") != std::string::npos) {
    msgs = sse_messages(res.body);
  } else {
    auto body = json::parse(res.body, nullptr, false);
    if (body.is_array())
      msgs.assign(body.begin(), body.end());
    else if (body.is_object())
      msgs.push_back(std::move(body));
  }
  for (auto& m : msgs)
    if (classify_mcp_message(m, id) == mcp_message_kind::reply) {
      reply = std::move(m);
      return {};
    }
  return "the MCP server sent no reply";
}

std::string mcp_http::call(const std::string& method, const json& params,
                           steady::time_point deadline, json& result) {
  auto id = next_id_++;
  json msg = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null())
    msg["params"] = params;
  json reply;
  if (auto err = post(msg, id, deadline, reply); !err.empty())
    return err;
  if (auto err = read_mcp_reply(reply, result); !err.empty())
    return err;
  if (method == "initialize" && result.contains("protocolVersion")
      && result["protocolVersion"].is_string())
    protocol_ = result["protocolVersion"].get<std::string>();
  return {};
}

bool mcp_http::notify(const std::string& method, const json& params) {
  json msg = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null())
    msg["params"] = params;
  json ignored;
  return post(msg, nullptr, steady::now() + std::chrono::seconds(10), ignored)
    .empty();
}

} // namespace nb
