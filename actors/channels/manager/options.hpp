// What the manager reads from channels.<name> for every channel: delivery
// flags, access control and the platform's message size limit.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/settings.hpp"

namespace nb {

enum class group_policy { mention, open, allowlist };

struct channel_options {
  /// The adapter: the "type" key, else the channel's own name (so a second
  /// instance of a platform can be "work": {"type": "telegram", ...}).
  std::string kind;
  bool send_progress = true;
  bool send_tool_hints = true;
  /// nullopt: allowFrom omitted (pairing mode); empty: nobody.
  std::optional<std::vector<std::string>> allow_from;
  group_policy groups = group_policy::mention;
  std::vector<std::string> group_allow_from; ///< chat ids, for allowlist
  size_t max_chars = 0;                      ///< 0: no limit
};

/// The most characters one message may carry on `channel` (0: no limit).
size_t platform_limit(const std::string& channel);

/// Reads the shared keys of channels.<name> (with the defaults of that
/// channel and of channels.*); the error text names the key path.
std::variant<channel_options, std::string>
parse_channel_options(const settings& cfg, const std::string& name);

} // namespace nb
