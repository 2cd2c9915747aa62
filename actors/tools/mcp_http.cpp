#include "actors/tools/mcp_http.hpp"

#include "actors/tools/http_fetch.hpp"

namespace nb {

namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;

// The messages of a server-sent-event stream: each event's data lines.
std::vector<json> sse_messages(const std::string& body) {
  std::vector<json> out;
  std::string data;
  size_t i = 0;
  auto flush = [&] {
    if (!data.empty()) {
      auto msg = json::parse(data, nullptr, false);
      if (!msg.is_discarded())
        out.push_back(std::move(msg));
    }
    data.clear();
  };
  while (i <= body.size()) {
    auto nl = body.find('\n', i);
    if (nl == std::string::npos)
      nl = body.size();
    auto line = body.substr(i, nl - i);
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty())
      flush();
    else if (line.rfind("data:", 0) == 0)
      data += line.substr(line.size() > 5 && line[5] == ' ' ? 6 : 5);
    i = nl + 1;
  }
  flush();
  return out;
}

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
    if (m.is_object() && !m.contains("method") && m.contains("id")
        && m["id"] == id) {
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
  if (reply.contains("error")) {
    return mcp_error_text(reply["error"]);
  }
  result = reply.value("result", json::object());
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
