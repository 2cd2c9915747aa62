// The CLI apps' catalog refreshed in the background, as the original's
// WebUI does it (nanobot/webui/cli_apps_api.py): the list route answers at
// once from the cached registries and, when a cache is missing or older
// than tools.cliApps.catalogTtlSeconds, starts one refresh of every
// registry; the WebUI asks again while the answer says
// catalog_refresh_pending. One refresh at a time, and at most one start a
// minute (a registry that keeps failing is not asked on every list).
#pragma once

#include <cstdint>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace nb::ws {

using cli_refresh_atom = caf::atom_constant<caf::atom("clirefresh")>;

/// Asked with a config dir and the catalog TTL (seconds): starts a
/// refresh of that dir's registry caches unless one runs or one started
/// less than a minute ago; answers whether a refresh is running now.
/// The fetches run on a thread of their own (blocking_task), never on the
/// scheduler's.
using cli_catalog_refresher = caf::typed_actor<
  caf::replies_to<cli_refresh_atom, std::string, int32_t>::with<bool>>;

cli_catalog_refresher spawn_cli_catalog_refresher(caf::actor_system& sys);

/// From a blocking thread (the WebUI API's): asks `refresher` as above;
/// false when it does not answer within a few seconds.
bool start_cli_catalog_refresh(caf::actor_system& sys,
                               const cli_catalog_refresher& refresher,
                               const std::string& config_dir, int ttl_s);

} // namespace nb::ws
