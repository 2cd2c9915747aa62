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

struct adapter_entry {
  std::string_view name;
  channel_factory make = nullptr;
};

/// Every adapter this build has.
const std::vector<adapter_entry>& adapter_table();

/// The factory for `name`, or nullptr.
channel_factory find_adapter(std::string_view name);

} // namespace nb
