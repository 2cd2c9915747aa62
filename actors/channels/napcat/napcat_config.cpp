#include "actors/channels/napcat/napcat_config.hpp"

#include "actors/channels/kit/config_reader.hpp"

namespace nb::napcat {

namespace {

/// "mention" | "open" | a number in [0, 1]; false when it is none of them.
bool read_rule(const nlohmann::json& v, group_rule& out) {
  if (v.is_string() && v.get<std::string>() == "mention")
    out.chance = 0;
  else if (v.is_string() && v.get<std::string>() == "open")
    out.chance = 1;
  else if (v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1)
    out.chance = v.get<double>();
  else
    return false;
  return true;
}

constexpr const char* rule_choices
  = "expected \"mention\", \"open\" or a probability between 0 and 1";

} // namespace

napcat_config parse_napcat_config(const std::string& name,
                                  const std::string& raw_json,
                                  const std::string& media_root,
                                  std::string& error) {
  chan::config_reader r{name, raw_json};
  napcat_config c;
  c.name = name;
  c.ws_url = r.str("wsUrl", c.ws_url);
  if (c.ws_url.rfind("ws://", 0) != 0 && c.ws_url.rfind("wss://", 0) != 0)
    r.fail("wsUrl", "expected a ws:// or wss:// URL");
  c.access_token = r.str("accessToken");
  if (auto* v = r.raw("groupPolicy"); v && !read_rule(*v, c.groups))
    r.fail("groupPolicy", rule_choices);
  if (auto* v = r.raw("groupPolicyOverrides")) {
    if (!v->is_object())
      r.fail("groupPolicyOverrides", "expected an object of group id: policy");
    else
      for (auto& [group, rule] : v->items()) {
        group_rule g;
        if (read_rule(rule, g))
          c.group_overrides[group] = g;
        else
          r.fail("groupPolicyOverrides." + group, rule_choices);
      }
  }
  c.welcome_new_members = r.boolean("welcomeNewMembers", true);
  c.max_image_bytes
    = r.integer("maxImageBytes", c.max_image_bytes, 1, int64_t{1} << 40);
  c.action_timeout_s = r.integer("actionTimeout", c.action_timeout_s, 1, 300);
  c.media_dir = media_root + "/" + name;
  error = r.error();
  return c;
}

const group_rule& rule_for(const napcat_config& cfg,
                           const std::string& group_id) {
  auto it = cfg.group_overrides.find(group_id);
  return it == cfg.group_overrides.end() ? cfg.groups : it->second;
}

} // namespace nb::napcat
