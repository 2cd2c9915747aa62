// Payload-free commands (atom text: 10 characters at most).
#pragma once

#include <caf/atom.hpp>

namespace nb {

using list_tools_atom = caf::atom_constant<caf::atom("listtools")>;
using live_sessions_atom = caf::atom_constant<caf::atom("livesess")>;
using flush_atom = caf::atom_constant<caf::atom("nbflush")>;
using stats_atom = caf::atom_constant<caf::atom("stats")>;
using idle_check_atom = caf::atom_constant<caf::atom("idlecheck")>;

} // namespace nb
