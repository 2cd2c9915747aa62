// channels.napcat: the keys the NapCat (OneBot v11) adapter reads.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace nb::napcat {

/// When a group message that does not @ the bot (or reply to it) is
/// answered: never ("mention", the default), always ("open"), or with a
/// probability (0..1). Mentions and replies to the bot are always answered.
struct group_rule {
  double chance = 0; ///< 0 = "mention", 1 = "open"
};

struct napcat_config {
  std::string name = "napcat";
  std::string ws_url = "ws://127.0.0.1:3001";
  std::string access_token; ///< sent as "Authorization: Bearer <token>"
  group_rule groups;
  std::map<std::string, group_rule> group_overrides; ///< by group_id
  bool welcome_new_members = true;
  int64_t max_image_bytes = 20 * 1024 * 1024;
  std::string media_dir; ///< <config dir>/media/<name>
  int64_t action_timeout_s = 20;
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
napcat_config parse_napcat_config(const std::string& name,
                                  const std::string& raw_json,
                                  const std::string& media_root,
                                  std::string& error);

/// The rule for `group_id` (its override, else groupPolicy).
const group_rule& rule_for(const napcat_config& cfg,
                           const std::string& group_id);

} // namespace nb::napcat
