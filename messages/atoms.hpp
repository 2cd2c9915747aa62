// Payload-free commands (atom text: 10 characters at most).
#pragma once

#include <caf/atom.hpp>

namespace nb {

using list_tools_atom = caf::atom_constant<caf::atom("listtools")>;
/// Session → its tools front: the tool_catalog; the asker is then sent each
/// newer catalog until it ends.
using tool_catalog_atom = caf::atom_constant<caf::atom("toolcatlg")>;
using live_sessions_atom = caf::atom_constant<caf::atom("livesess")>;
using flush_atom = caf::atom_constant<caf::atom("nbflush")>;
using stats_atom = caf::atom_constant<caf::atom("stats")>;

// -- session/runner: mid-turn messages and /stop
/// Runner → session: hand over the messages that arrived during the turn.
using take_injections_atom = caf::atom_constant<caf::atom("takeinj")>;
/// Session → runner: messages are waiting to be taken at the next check.
using injections_ready_atom = caf::atom_constant<caf::atom("injready")>;
/// Session → runner: stop now, keep the work done so far (/stop).
using cancel_turn_atom = caf::atom_constant<caf::atom("cancelturn")>;
/// Session → runner: the turn's user message is durable in the session
/// file; tool calls held until now may run (runner_settings::hold_tools).
using user_saved_atom = caf::atom_constant<caf::atom("usersaved")>;
using heartbeat_run_atom = caf::atom_constant<caf::atom("hbrun")>;
/// Runs one cron job now, by id (`nanobot cron run`, tests).
using cron_run_atom = caf::atom_constant<caf::atom("cronrun")>;
/// Session → tools (with the session key): /stop. Ends the session's
/// running execs and background exec sessions; answers how many background
/// sessions ended (the original counts them as stopped tasks).
using exec_stop_atom = caf::atom_constant<caf::atom("execstop")>;

} // namespace nb
