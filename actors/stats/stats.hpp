// The stats actor: folds samples from every actor into running totals and
// renders them for /stats (JSON) and /metrics (Prometheus text).
#pragma once

#include <caf/actor_system.hpp>

#include "messages/interfaces.hpp"

namespace nb {

/// Spawns the stats actor. It answers `stats_atom, "json"` with the /stats
/// document (see render.hpp for the field names) and
/// `stats_atom, "prometheus"` with the /metrics text; any other format is
/// errc::invalid_arguments. Samples cost a few map updates each.
stats_actor spawn_stats(caf::actor_system& sys);

} // namespace nb
