// Channel states as JSON, for GET /channels (gateway port), GET
// /api/channels (WebUI) and `nanobot channels status`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/channel.hpp"

namespace nb {

inline nlohmann::json to_json(const channel_status& s) {
  return {{"name", s.name},         {"state", s.state}, {"detail", s.detail},
          {"received", s.received}, {"sent", s.sent},   {"failed", s.failed}};
}

/// {"channels": [{name, state, detail, received, sent, failed}, ...]}
inline std::string channels_json(const std::vector<channel_status>& all) {
  auto list = nlohmann::json::array();
  for (const auto& s : all)
    list.push_back(to_json(s));
  return nlohmann::json{{"channels", list}}.dump();
}

} // namespace nb
