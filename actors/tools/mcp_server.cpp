#include "actors/tools/mcp_server.hpp"

#include <algorithm>
#include <chrono>

#include "actors/common/log.hpp"
#include "actors/tools/mcp_http.hpp"
#include "actors/tools/mcp_names.hpp"
#include "actors/tools/mcp_sse.hpp"
#include "actors/tools/registry.hpp"
#include "actors/tools/text.hpp"
#include "actors/tools/tool_worker.hpp"
#include "actors/tools/untrusted.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;
using server_ptr = tools_actor::stateful_pointer<mcp_server_state>;

constexpr auto connect_budget = std::chrono::seconds(30);
constexpr const char* protocol_version = "2025-06-18";

void disconnect(server_ptr self) {
  if (self->state.conn)
    self->state.conn->stop();
  self->state.ready = false;
}

// (Re)connects when needed: start, initialize, tools/list. "" or why not.
std::string ensure_connected(server_ptr self) {
  auto& st = self->state;
  if (st.ready && st.conn && st.conn->alive())
    return {};
  disconnect(self);
  if (st.cfg.type == "stdio") {
    auto child = std::make_unique<mcp_stdio>();
    if (auto err = child->start(st.cfg); !err.empty())
      return "could not start: " + err;
    st.conn = std::move(child);
  } else if (st.cfg.type == "sse") {
    auto sse = std::make_unique<mcp_sse>(st.cfg,
                                         make_ssrf_policy(st.ssrf_whitelist));
    if (auto err = sse->start(steady::now() + connect_budget); !err.empty())
      return "could not open the event stream: " + err;
    st.conn = std::move(sse);
  } else {
    st.conn = std::make_unique<mcp_http>(st.cfg,
                                         make_ssrf_policy(st.ssrf_whitelist));
  }
  auto deadline = steady::now() + connect_budget;
  json result;
  json init = {{"protocolVersion", protocol_version},
               {"capabilities", json::object()},
               {"clientInfo", {{"name", "nanobot-cpp"}, {"version", "0.1"}}}};
  if (auto err = st.conn->call("initialize", init, deadline, result);
      !err.empty()) {
    disconnect(self);
    return "initialize failed: " + err;
  }
  st.conn->notify("notifications/initialized", nullptr);
  st.specs.clear();
  st.tool_names.clear();
  json cursor;
  for (int page = 0; page < 50; ++page) {
    json params = json::object();
    if (!cursor.is_null())
      params["cursor"] = cursor;
    json listed;
    if (auto err = st.conn->call("tools/list", params, deadline, listed);
        !err.empty()) {
      disconnect(self);
      return "tools/list failed: " + err;
    }
    for (auto& t : listed.value("tools", json::array())) {
      if (!t.is_object() || !t.contains("name") || !t["name"].is_string())
        continue;
      auto tool = t["name"].get<std::string>();
      auto name = mcp_tool_name(st.server, tool);
      if (!mcp_tool_enabled(st.cfg.enabled_tools, tool, name))
        continue;
      auto schema = normalize_schema(t.value("inputSchema", json::object()));
      bool read_only = t.contains("annotations")
                       && t["annotations"].is_object()
                       && t["annotations"].value("readOnlyHint", false);
      auto desc = t.contains("description") && t["description"].is_string()
                    ? t["description"].get<std::string>()
                    : tool;
      st.tool_names[name] = tool;
      st.specs.push_back({name, "[MCP " + st.server + "] " + desc,
                          schema.dump(), read_only, false});
    }
    cursor = listed.value("nextCursor", json());
    if (!cursor.is_string())
      break;
  }
  std::sort(st.specs.begin(), st.specs.end(),
            [](auto& a, auto& b) { return a.name < b.name; });
  st.ready = true;
  log::get("mcp")->info("MCP server '{}' connected: {} tools", st.server,
                        st.specs.size());
  return {};
}

tool_result run_call(server_ptr self, const tool_request& req) {
  auto& st = self->state;
  tool_result r;
  r.call_id = req.call.id;
  r.name = req.call.name;
  r.started_us = steady_now_us();
  auto finish = [&](std::string text, bool error) {
    r.content = sanitize_utf8(text) + (error ? tool_error_hint : "");
    r.is_error = error;
    r.finished_us = steady_now_us();
    return r;
  };
  auto args = json::parse(req.call.arguments_json.empty()
                            ? std::string{"{}"}
                            : req.call.arguments_json,
                          nullptr, false);
  if (args.is_null())
    args = json::object();
  if (!args.is_object())
    return finish("Error: Invalid parameters for tool '" + req.call.name
                    + "': arguments must be a JSON object",
                  true);
  if (auto err = ensure_connected(self); !err.empty())
    return finish("Error: MCP server '" + st.server + "' is unavailable ("
                    + err + ")",
                  true);
  auto it = st.tool_names.find(req.call.name);
  if (it == st.tool_names.end())
    return finish("Error: Tool '" + req.call.name + "' not found on MCP "
                  "server '" + st.server + "'",
                  true);
  json result;
  auto deadline = steady::now() + std::chrono::seconds(st.cfg.tool_timeout_s);
  auto err = st.conn->call("tools/call",
                           {{"name", it->second}, {"arguments", args}},
                           deadline, result);
  if (!err.empty()) {
    // A dead or stuck server is restarted on the next call.
    if (err.find("JSON-RPC") == std::string::npos
        && err.rfind("MCP error", 0) != 0)
      disconnect(self);
    if (err.find("timed out") != std::string::npos)
      err = "MCP tool call timed out after "
            + std::to_string(st.cfg.tool_timeout_s) + " s";
    return finish("Error: " + err, true);
  }
  bool is_error = result.value("isError", false);
  return finish(frame_untrusted("mcp:" + st.server + "/" + it->second,
                                mcp_result_text(result)),
                is_error);
}

} // namespace

std::string mcp_result_text(const json& result) {
  std::string out;
  for (auto& block : result.value("content", json::array())) {
    if (!block.is_object())
      continue;
    auto type = block.value("type", std::string{});
    std::string piece;
    if (type == "text")
      piece = block.value("text", std::string{});
    else if (type == "image" || type == "audio")
      piece = "[" + type + ": " + block.value("mimeType", std::string{"?"})
              + ", " + std::to_string(block.value("data", std::string{}).size())
              + " base64 characters, not shown]";
    else if (type == "resource" && block.contains("resource"))
      piece = block["resource"].value(
        "text", "[resource " + block["resource"].value("uri", std::string{})
                  + "]");
    else if (type == "resource_link")
      piece = "[resource link: " + block.value("uri", std::string{}) + "]";
    else
      piece = block.dump();
    if (!out.empty())
      out += "\n";
    out += piece;
  }
  if (out.empty() && result.contains("structuredContent"))
    out = result["structuredContent"].dump(2);
  return out;
}

tools_actor::behavior_type
mcp_server_impl(server_ptr self, std::string server, mcp_server_settings cfg,
                std::vector<std::string> ssrf_whitelist, stats_actor stats,
                std::string agent) {
  self->state.server = std::move(server);
  self->state.ssrf_whitelist = std::move(ssrf_whitelist);
  self->state.cfg = std::move(cfg);
  self->state.meter.start(self, "mcp_server", stats);
  return {
    [self](list_tools_atom) -> caf::result<std::vector<tool_spec>> {
      auto t = self->state.meter.measure();
      if (auto err = ensure_connected(self); !err.empty()) {
        log::get("mcp")->warn("MCP server '{}': {}", self->state.server, err);
        self->state.meter.failed();
        return caf::make_error(errc::provider_failed,
                               "MCP server '" + self->state.server + "': "
                                 + err);
      }
      return self->state.specs;
    },
    [self, stats, agent](const tool_request& req) -> tool_result {
      auto t = self->state.meter.measure();
      auto r = run_call(self, req);
      report_tool_sample(stats, r, agent);
      return r;
    },
    [](const cancel_tools&) {
      // A call in progress blocks this actor until it ends; by the time
      // a stop is read here there is nothing left to stop.
    },
    [](exec_stop_atom, const std::string&) -> int32_t {
      return 0; // an MCP server runs no exec sessions
    },
  };
}

} // namespace nb
