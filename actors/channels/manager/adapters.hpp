// The table of channel adapters: channel name -> factory. One line per
// adapter in adapters.cpp; the manager starts the enabled ones.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"

namespace nb {

/// Spawns the adapter for channels.<name>. It reads its own keys from
/// cfg.channels.at(name).raw_json (errors name the key path, e.g.
/// "channels.telegram.token: missing", and show in its channel_status), hands
/// inbound messages to `manager` and answers outbound_msg / status requests.
/// Returns a null handle only when it cannot run at all.
using channel_factory = channel_actor (*)(caf::actor_system& sys,
                                          const settings& cfg,
                                          const std::string& name,
                                          channel_manager_actor manager);

/// The adapter's own reading of channels.<name> in `cfg` (the one it does
/// when it starts): "" when it takes the keys, else the error, which names
/// the key ("channels.tg2.token: missing"). Pure apart from the files a
/// channel reads as part of its keys (a saved bridge token).
using channel_check = std::string (*)(const settings& cfg,
                                      const std::string& name);

struct adapter_entry {
  std::string_view name;
  channel_factory make = nullptr;
  channel_check check = nullptr;
  /// The keys a new channel of this type must have (the WebUI's "add
  /// channel" form asks for them; `check` has the last word).
  std::vector<std::string_view> required;
  /// It fetches the links in replies under the tools' SSRF guard, with
  /// tools.ssrfWhitelist as it was when the adapter started: a change of
  /// the whitelist restarts it.
  bool fetches_links = false;
};

/// Every adapter this build has.
const std::vector<adapter_entry>& adapter_table();

/// The factory for `name`, or nullptr.
channel_factory find_adapter(std::string_view name);

/// The table's entry for `name`, or nullptr.
const adapter_entry* find_adapter_entry(std::string_view name);

} // namespace nb
