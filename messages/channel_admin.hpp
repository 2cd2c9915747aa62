// Changing one channel of a running gateway (the WebUI's settings, issue
// 20): the channel manager re-reads channels.<name> from the config text the
// WebUI saved and restarts that channel only. Atoms and strings only, so no
// type-ID block; kept out of interfaces.hpp, which nearly every file includes.
#pragma once

#include <string>

#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/channel.hpp"

namespace nb {

/// (name, config JSON text, dry_run): the manager reads channels.<name>
/// from the text with the loader and its own option checks, and answers ""
/// when it takes them, else the error, which names the key path. With dry_run nothing changes; otherwise the channel's
/// adapter is stopped and, once it is gone, started with the new settings
/// (a disabled channel just stops). Other channels keep running.
using channel_reconfigure_atom = caf::atom_constant<caf::atom("chreconf")>;

/// The channel types a new channel may have and the keys each needs:
/// [{type, required: [key]}] as JSON text (the WebUI's "add channel").
using channel_kinds_atom = caf::atom_constant<caf::atom("chkinds")>;

/// (config JSON text): the gateway's tools settings changed (the WebUI's
/// tools page, a CLI app installed). The manager takes tools.ssrfWhitelist
/// from the text; when it differs, the running channels that fetch reply
/// links under the tools' SSRF guard (their adapters read the whitelist
/// when they start) are restarted as a channel change restarts them.
using channel_tools_atom = caf::atom_constant<caf::atom("chtools")>;

/// The manager's wider view, for the WebUI's settings.
using channel_manager_admin_actor = channel_manager_actor::extend<
  caf::replies_to<channel_reconfigure_atom, std::string, std::string,
                  bool>::with<std::string>,
  caf::replies_to<channel_kinds_atom>::with<std::string>,
  caf::reacts_to<channel_tools_atom, std::string>>;

} // namespace nb
