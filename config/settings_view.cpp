// The settings pages' view of a config: what the loader made of it, the
// user's own spelling where the pages edit raw JSON, and no secret values.
#include "config/settings_forms.hpp"

#include "config/json_edit.hpp"

namespace nb {

namespace {

using nlohmann::json;
using config_json::ojson;

/// `x` without secret values at any depth; `set` collects the dotted names
/// of the secrets that have one.
json scrub(const ojson& x, const std::string& at, json& set) {
  if (x.is_object()) {
    json out = json::object();
    for (auto it = x.begin(); it != x.end(); ++it) {
      auto where = at.empty() ? it.key() : at + "." + it.key();
      if (secret_key(it.key())) {
        if (!(it->is_string() && it->get<std::string>().empty())
            && !it->is_null())
          set.push_back(where);
        continue;
      }
      out[it.key()] = scrub(*it, where, set);
    }
    return out;
  }
  if (x.is_array()) {
    json out = json::array();
    for (size_t i = 0; i < x.size(); ++i)
      out.push_back(scrub(x[i], at + "[" + std::to_string(i) + "]", set));
    return out;
  }
  return json::parse(x.dump());
}

json keys_of(const std::map<std::string, std::string>& m) {
  json out = json::array();
  for (const auto& [k, _] : m)
    out.push_back(k);
  return out;
}

const ojson* raw_at(const ojson& raw, std::initializer_list<std::string_view> path) {
  const ojson* at = &raw;
  for (auto part : path) {
    at = config_json::find(*at, part);
    if (!at)
      return nullptr;
  }
  return at;
}

void hide_texts(json& x) {
  if (x.is_string())
    x = "(set)";
  else if (x.is_structured())
    for (auto& item : x)
      hide_texts(item);
}

json channel_view(const std::string& name, const channel_settings& c) {
  auto raw = ojson::parse(c.raw_json, nullptr, false);
  if (!raw.is_object())
    raw = ojson::object();
  json secrets = json::array();
  auto rest = scrub(raw, "", secrets);
  auto pick = [&](std::string_view camel) -> json {
    auto* v = config_json::find(raw, camel);
    return v ? json::parse(v->dump()) : json();
  };
  auto type = pick("type");
  json out{{"name", name},
           {"kind", type.is_string() ? type.get<std::string>() : name},
           {"enabled", c.enabled},
           {"allow_from", pick("allowFrom")},
           {"group_policy", pick("groupPolicy")},
           {"group_allow_from", pick("groupAllowFrom")},
           {"secrets_set", secrets}};
  for (auto key : {"type", "enabled", "allowFrom", "allow_from", "groupPolicy",
                   "group_policy", "groupAllowFrom", "group_allow_from"})
    rest.erase(key);
  // Other texts may hold credentials under keys that do not say so (a
  // webhook URL with its token): only their presence is shown.
  for (auto& [key, value] : rest.items())
    if (key != "host" && key != "path" && key != "mode")
      hide_texts(value);
  out["other"] = rest;
  return out;
}

} // namespace

json settings_view(const ojson& raw, const settings& s) {
  json ignored = json::array();
  const auto& a = s.agent;
  const auto* fallbacks = raw_at(raw, {"agents", "defaults", "fallbackModels"});
  json model{{"model", a.model},
             {"provider", a.provider},
             {"model_preset", a.model_preset},
             {"max_tokens", a.max_tokens},
             {"context_window_tokens", a.context_window_tokens},
             {"temperature", a.temperature},
             {"fallback_models", fallbacks ? scrub(*fallbacks, "", ignored)
                                           : json::array()}};
  json providers = json::array();
  for (const auto& [name, p] : s.providers)
    providers.push_back({{"name", name}, {"key_set", !p.api_key.empty()},
                         {"api_base", p.api_base}});
  json presets = json::array();
  for (const auto& [name, _] : s.model_presets)
    presets.push_back(name);
  const auto& t = s.tools;
  json tools{{"exec_enable", t.exec.enable},
             {"exec_timeout", t.exec.timeout_s},
             {"restrict_to_workspace", t.restrict_to_workspace},
             {"ssrf_whitelist", t.ssrf_whitelist},
             {"web_search_provider", t.web.search.provider},
             {"web_search_base_url", t.web.search.base_url},
             {"web_search_key_set", !t.web.search.api_key.empty()}};
  json mcp = json::array();
  for (const auto& [name, m] : t.mcp_servers)
    mcp.push_back({{"name", name}, {"type", m.type}, {"command", m.command},
                   {"args", m.args}, {"url", m.url}, {"cwd", m.cwd},
                   {"env_keys", keys_of(m.env)},
                   {"header_keys", keys_of(m.headers)},
                   {"tool_timeout", m.tool_timeout_s}});
  json channels = json::array();
  for (const auto& [name, c] : s.channels)
    channels.push_back(channel_view(name, c));
  json agents = json::array();
  for (const auto& p : s.agents)
    agents.push_back({{"id", p.id}, {"name", p.name},
                      {"model", p.agent.model},
                      {"workspace", p.agent.workspace}});
  const auto* list = raw_at(raw, {"agents", "list"});
  const auto* bindings = raw_at(raw, {"agents", "bindings"});
  return {{"model", model},
          {"providers", providers},
          {"presets", presets},
          {"tools", tools},
          {"mcp_servers", mcp},
          {"channels", channels},
          {"agents", agents},
          {"agents_list", list ? scrub(*list, "", ignored) : json::array()},
          {"bindings", bindings ? scrub(*bindings, "", ignored) : json::array()}};
}

} // namespace nb
