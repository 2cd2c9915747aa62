#include "actors/channels/mochat/mochat_config.hpp"

#include <algorithm>

#include "actors/channels/kit/config_reader.hpp"
#include "actors/channels/mochat/socketio_packet.hpp"
#include "actors/common/strings.hpp"

namespace nb::mochat {

namespace {

using nlohmann::json;

/// The member spelled `camel` or `snake` in a nested object.
const json* nested_member(const json& obj, const char* camel,
                          const char* snake) {
  for (const char* k : {camel, snake})
    if (auto it = obj.find(k); it != obj.end() && !it->is_null())
      return &*it;
  return nullptr;
}

/// Ids without blanks and duplicates, sorted; `all` tells whether "*" was
/// among them.
std::vector<std::string> id_list(std::vector<std::string> raw, bool& all) {
  std::vector<std::string> out;
  all = false;
  for (auto& v : raw) {
    auto id = trim_space(v);
    if (id == "*")
      all = true;
    else if (!id.empty())
      out.push_back(id);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void read_groups(chan::config_reader& r, mochat_config& c) {
  if (auto* m = r.raw("mention")) {
    const json* v =
      m->is_object() ? nested_member(*m, "requireInGroups", "require_in_groups")
                     : nullptr;
    if (!m->is_object() || (v && !v->is_boolean()))
      r.fail("mention.requireInGroups", "expected true or false");
    else if (v)
      c.require_in_groups = v->get<bool>();
  }
  if (auto* g = r.raw("groups")) {
    if (!g->is_object()) {
      r.fail("groups", "expected an object of group id: {requireMention}");
      return;
    }
    for (auto& [id, rule] : g->items()) {
      const json* v = rule.is_object() ? nested_member(rule, "requireMention",
                                                       "require_mention")
                                       : nullptr;
      if (!rule.is_object() || (v && !v->is_boolean()))
        r.fail("groups." + id + ".requireMention", "expected true or false");
      else
        c.group_mention[id] = v && v->get<bool>();
    }
  }
}

} // namespace

mochat_config parse_mochat_config(const std::string& name,
                                  const std::string& raw_json,
                                  std::string& error) {
  chan::config_reader r{name, raw_json};
  mochat_config c;
  c.name = name;
  c.base_url = r.str("baseUrl", c.base_url);
  if (r.has("apiBase"))
    c.base_url = r.str("apiBase", c.base_url);
  while (!c.base_url.empty() && c.base_url.back() == '/')
    c.base_url.pop_back();
  if (c.base_url.rfind("http://", 0) != 0
      && c.base_url.rfind("https://", 0) != 0)
    r.fail("baseUrl", "expected an http(s) URL");
  c.socket_url = trim_space(r.str("socketUrl"));
  c.socket_path = r.str("socketPath", c.socket_path);
  std::string why;
  if (sio::websocket_url(socket_base(c), c.socket_path, why).empty()
      && !c.socket_url.empty())
    r.fail("socketUrl", why);
  // The original's msgpack switch: this client always speaks JSON.
  (void)r.boolean("socketDisableMsgpack", false);
  c.reconnect_delay_ms =
    r.integer("socketReconnectDelayMs", c.reconnect_delay_ms, 100, 3600000);
  c.max_reconnect_delay_ms = r.integer("socketMaxReconnectDelayMs",
                                       c.max_reconnect_delay_ms, 100, 3600000);
  c.connect_timeout_ms =
    r.integer("socketConnectTimeoutMs", c.connect_timeout_ms, 1000, 600000);
  c.refresh_interval_ms =
    r.integer("refreshIntervalMs", c.refresh_interval_ms, 1000, 86400000);
  c.watch_timeout_ms =
    r.integer("watchTimeoutMs", c.watch_timeout_ms, 0, 600000);
  c.retry_delay_ms = r.integer("retryDelayMs", c.retry_delay_ms, 0, 600000);
  c.watch_limit = r.integer("watchLimit", c.watch_limit, 1, 1000);
  c.max_retry_attempts = r.integer("maxRetryAttempts", 0, 0, 1000000);
  c.claw_token = r.required_str("clawToken");
  c.agent_user_id = trim_space(r.str("agentUserId"));
  c.sessions = id_list(r.strings("sessions"), c.all_sessions);
  c.panels = id_list(r.strings("panels"), c.all_panels);
  read_groups(r, c);
  c.reply_delay_mode =
    r.choice("replyDelayMode", c.reply_delay_mode, {"off", "non-mention"});
  c.reply_delay_ms = r.integer("replyDelayMs", c.reply_delay_ms, 0, 86400000);
  error = r.error();
  return c;
}

std::string socket_base(const mochat_config& cfg) {
  return cfg.socket_url.empty() ? cfg.base_url : cfg.socket_url;
}

bool requires_mention(const mochat_config& cfg, const std::string& panel_id,
                      const std::string& group_id) {
  for (const auto* key : {&group_id, &panel_id})
    if (!key->empty())
      if (auto it = cfg.group_mention.find(*key); it != cfg.group_mention.end())
        return it->second;
  if (auto it = cfg.group_mention.find("*"); it != cfg.group_mention.end())
    return it->second;
  return cfg.require_in_groups;
}

} // namespace nb::mochat
