// nb::settings → config.json (camelCase keys).
#include "config/to_json.hpp"

namespace nb {

nlohmann::json to_config_json(const settings& s) {
  using nlohmann::json;
  json providers = json::object();
  for (const auto& [name, p] : s.providers) {
    json entry = {{"apiKey", p.api_key}, {"apiBase", p.api_base}};
    if (!p.extra_headers.empty())
      entry["extraHeaders"] = p.extra_headers;
    providers[name] = std::move(entry);
  }
  json channels = {{"sendProgress", s.channels_common.send_progress},
                   {"sendToolHints", s.channels_common.send_tool_hints},
                   {"showReasoning", s.channels_common.show_reasoning},
                   {"sendMaxRetries", s.channels_common.send_max_retries}};
  for (const auto& [name, ch] : s.channels) {
    auto obj = json::parse(ch.raw_json, nullptr, false);
    if (!obj.is_object())
      obj = json::object();
    obj["enabled"] = ch.enabled;
    channels[name] = std::move(obj);
  }
  const auto& a = s.agent;
  const auto& g = s.gateway;
  return {
    {"agents",
     {{"defaults",
       {{"workspace", a.workspace},
        {"model", a.model},
        {"provider", a.provider},
        {"maxTokens", a.max_tokens},
        {"contextWindowTokens", a.context_window_tokens},
        {"temperature", a.temperature},
        {"maxToolIterations", a.max_tool_iterations}}}}},
    {"providers", providers},
    {"tools",
     {{"restrictToWorkspace", s.tools.restrict_to_workspace},
      {"exec",
       {{"enable", s.tools.exec.enable},
        {"timeout", s.tools.exec.timeout_s},
        {"denyPatterns", s.tools.exec.deny_patterns},
        {"pathAppend", s.tools.exec.path_append}}}}},
    {"api",
     {{"host", s.api.host},
      {"port", s.api.port},
      {"apiKey", s.api.api_key},
      {"timeout", s.api.timeout_s}}},
    {"gateway",
     {{"host", g.host},
      {"port", g.port},
      {"schedulerThreads", g.scheduler_threads},
      {"providerWorkers", g.provider_workers},
      {"toolWorkers", g.tool_workers},
      {"httpThreads", g.http_threads},
      {"sessionIdleSeconds", g.session_idle_s},
      {"drainSeconds", g.drain_s},
      {"inbox", {{"maxBytes", g.inbox.max_bytes}}},
      {"heartbeat",
       {{"enabled", g.heartbeat.enabled},
        {"intervalS", g.heartbeat.interval_s},
        {"keepRecentMessages", g.heartbeat.keep_recent_messages}}}}},
    {"channels", channels},
  };
}

} // namespace nb
