#include "actors/channels/manager/options.hpp"

#include <nlohmann/json.hpp>

#include "config/keys.hpp"

namespace nb {

namespace {

using nlohmann::json;

struct platform_default {
  const char* name;
  size_t max_chars;
  group_policy groups;
  bool allow_everyone; ///< allowFrom omitted means "*" (a local channel)
};

// Limits are the platforms' documented maxima for one message's text.
constexpr platform_default defaults[] = {
  {"telegram", 4096, group_policy::mention, false},
  {"discord", 2000, group_policy::mention, false},
  {"slack", 40000, group_policy::mention, false},
  {"matrix", 32000, group_policy::open, false},
  {"mattermost", 16383, group_policy::mention, false},
  {"whatsapp", 4096, group_policy::open, false},
  // DingTalk: a robot message's msgParam holds 15 000 bytes (4 000 CJK
  // characters with room for escapes); groups only deliver @-messages.
  {"dingtalk", 4000, group_policy::open, false},
  // A card's request body may be 30 KB; a character can take 4 bytes
  // there (a quote escaped in the content string, escaped again in the body).
  {"feishu", 7000, group_policy::mention, false},
  {"email", 0, group_policy::open, false},
  // QQ documents no maximum; these are what its clients take in one piece.
  {"napcat", 4500, group_policy::open, false}, // the adapter filters groups
  {"qq", 2000, group_policy::mention, false},
  // Mochat documents no maximum; 4 000 characters stay one readable
  // message. Its adapter applies mention.requireInGroups and groups.*.
  {"mochat", 4000, group_policy::open, false},
  {"websocket", 0, group_policy::open, true},
};

const platform_default* find_default(const std::string& name) {
  for (const auto& d : defaults)
    if (name == d.name)
      return &d;
  return nullptr;
}

/// The member spelled `camel` or its snake_case form.
const json* member(const json& obj, const char* camel) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (config::key_matches(it.key(), camel) && !it->is_null())
      return &*it;
  return nullptr;
}

std::optional<std::string> read_list(const json& obj, const char* key,
                                     const std::string& at,
                                     std::vector<std::string>& out) {
  const auto* v = member(obj, key);
  if (v == nullptr)
    return std::nullopt;
  if (!v->is_array())
    return at + "." + key + ": expected a list of strings";
  out.clear();
  for (const auto& x : *v) {
    // Ids are opaque: numbers (Telegram user ids) are taken as written.
    if (x.is_string())
      out.push_back(x.get<std::string>());
    else if (x.is_number_integer())
      out.push_back(std::to_string(x.get<int64_t>()));
    else
      return at + "." + key + ": expected a list of strings";
  }
  return std::nullopt;
}

std::optional<std::string> read_flag(const json& obj, const char* key,
                                     const std::string& at, bool& out) {
  const auto* v = member(obj, key);
  if (v == nullptr)
    return std::nullopt;
  if (!v->is_boolean())
    return at + "." + key + ": expected a boolean";
  out = v->get<bool>();
  return std::nullopt;
}

} // namespace

size_t platform_limit(const std::string& channel) {
  auto* d = find_default(channel);
  return d == nullptr ? 0 : d->max_chars;
}

std::variant<channel_options, std::string>
parse_channel_options(const settings& cfg, const std::string& name) {
  channel_options out;
  out.kind = name;
  out.send_progress = cfg.channels_common.send_progress;
  out.send_tool_hints = cfg.channels_common.send_tool_hints;
  auto at = "channels." + name;
  auto i = cfg.channels.find(name);
  auto obj = json::parse(i == cfg.channels.end() ? "{}" : i->second.raw_json,
                         nullptr, false);
  if (!obj.is_object())
    return at + ": expected an object";
  if (const auto* t = member(obj, "type")) {
    if (!t->is_string() || t->get<std::string>().empty())
      return at + ".type: expected the name of a channel kind";
    out.kind = t->get<std::string>();
  }
  if (auto* d = find_default(out.kind)) {
    out.max_chars = d->max_chars;
    out.groups = d->groups;
    if (d->allow_everyone && out.kind == name)
      out.allow_from = std::vector<std::string>{"*"};
  }
  if (auto e = read_flag(obj, "sendProgress", at, out.send_progress))
    return *e;
  if (auto e = read_flag(obj, "sendToolHints", at, out.send_tool_hints))
    return *e;
  std::vector<std::string> allow;
  if (auto e = read_list(obj, "allowFrom", at, allow))
    return *e;
  if (member(obj, "allowFrom") != nullptr)
    out.allow_from = std::move(allow);
  if (auto e = read_list(obj, "groupAllowFrom", at, out.group_allow_from))
    return *e;
  if (const auto* g = member(obj, "groupPolicy")) {
    auto text = g->is_string() ? g->get<std::string>() : std::string{};
    // NapCat's adapter applies its own policy (a probability, per-group
    // overrides) and reads the key itself; what it hands on is to answer.
    bool adapter_policy = out.kind == "napcat";
    if (adapter_policy)
      out.groups = group_policy::open;
    else if (text == "mention")
      out.groups = group_policy::mention;
    else if (text == "open")
      out.groups = group_policy::open;
    else if (text == "allowlist")
      out.groups = group_policy::allowlist;
    else
      return at + ".groupPolicy: expected \"mention\", \"open\" or "
                  "\"allowlist\"";
  }
  return out;
}

} // namespace nb
