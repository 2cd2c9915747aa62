// exec background sessions (exec with yield_time_ms, write_stdin,
// list_exec_sessions): what the tool calls ask the session manager
// (actors/tools/exec_sessions.hpp), which owns the processes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/atoms.hpp"
#include "messages/tool.hpp"

namespace nb {

/// A checked exec command, ready to start: what exec's guards produced
/// (shell argv, environment, working directory, limits, the sandbox).
struct exec_launch {
  std::string command; ///< as the model wrote it (listing, logs)
  std::string program; ///< absolute path of the shell
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string cwd;            ///< real path
  int32_t timeout_s = 0;      ///< 0 = no limit
  uint64_t max_processes = 0; ///< rlimits (child_limits)
  uint64_t max_memory_mb = 0;
  uint64_t max_cpu_s = 0;
  bool sandboxed = false; ///< run inside bubblewrap with the fields below
  std::string workspace;  ///< real path of the workspace root
  std::string config_dir;
  std::string config_file;
  std::string network;
  std::vector<std::string> ro_binds;
  std::vector<std::string> rw_binds;
  int64_t sandbox_max_processes = 256; ///< the pids cgroup's limit
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, exec_launch& x) {
  return f(caf::meta::type_name("exec_launch"), x.command, x.program, x.argv,
           x.env, x.cwd, x.timeout_s, x.max_processes, x.max_memory_mb,
           x.max_cpu_s, x.sandboxed, x.workspace, x.config_dir, x.config_file,
           x.network, x.ro_binds, x.rw_binds, x.sandbox_max_processes);
}

/// Start `launch` as a session of `owner` (a session key) and answer after
/// `yield_ms` or when it ends, whichever comes first.
struct exec_session_start {
  std::string owner;
  exec_launch launch;
  int32_t yield_ms = 1000;
  int32_t max_output = 10000; ///< bytes of output in the answer
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, exec_session_start& x) {
  return f(caf::meta::type_name("exec_session_start"), x.owner, x.launch,
           x.yield_ms, x.max_output);
}

/// write_stdin: type `chars`, then maybe close stdin or terminate, then
/// wait `yield_ms` (or, with `wait_for`, until that text appears, at most
/// `wait_timeout_ms`) and answer what the session wrote meanwhile.
struct exec_session_write {
  std::string owner;
  std::string id;
  std::string chars;
  bool close_stdin = false;
  bool terminate = false;
  int32_t yield_ms = 1000;
  std::string wait_for; ///< "" = wait yield_ms
  int32_t wait_timeout_ms = 10000;
  int32_t max_output = 10000;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, exec_session_write& x) {
  return f(caf::meta::type_name("exec_session_write"), x.owner, x.id, x.chars,
           x.close_stdin, x.terminate, x.yield_ms, x.wait_for,
           x.wait_timeout_ms, x.max_output);
}

/// What a session did since it was last asked.
struct exec_session_poll {
  std::string error; ///< not started / not found / refused: the reason
  std::string id;
  std::string output;     ///< stdout, then "STDERR:\n..." (cut to the budget)
  uint64_t truncated = 0; ///< bytes left out of `output`
  bool done = false;      ///< the process ended (the session is gone)
  int32_t exit_code = 0;  ///< when done; negative: killed by that signal
  int64_t elapsed_ms = 0;
  bool timed_out = false; ///< killed at tools.exec.timeout
  bool terminated = false;
  bool stdin_closed = false;
  bool wait_seen = true; ///< wait_for's text appeared (or none was asked)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, exec_session_poll& x) {
  return f(caf::meta::type_name("exec_session_poll"), x.error, x.id, x.output,
           x.truncated, x.done, x.exit_code, x.elapsed_ms, x.timed_out,
           x.terminated, x.stdin_closed, x.wait_seen);
}

/// list_exec_sessions: the sessions `owner` started.
struct exec_session_list {
  std::string owner;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, exec_session_list& x) {
  return f(caf::meta::type_name("exec_session_list"), x.owner);
}

/// One line of the listing.
struct exec_session_info {
  std::string id;
  bool running = true;
  int64_t elapsed_ms = 0;
  int64_t idle_ms = 0;
  int64_t remaining_ms = -1; ///< -1: no time limit
  std::string cwd;
  std::string command;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, exec_session_info& x) {
  return f(caf::meta::type_name("exec_session_info"), x.id, x.running,
           x.elapsed_ms, x.idle_ms, x.remaining_ms, x.cwd, x.command);
}

/// The session manager. `cancel_tools` with no call ids ends every session
/// of that session key (/new, a subagent that finished); `exec_stop_atom`
/// does the same for /stop and answers how many ended.
using exec_sessions_actor = caf::typed_actor<
  caf::replies_to<exec_session_start>::with<exec_session_poll>,
  caf::replies_to<exec_session_write>::with<exec_session_poll>,
  caf::replies_to<exec_session_list>::with<std::vector<exec_session_info>>,
  caf::reacts_to<cancel_tools>,
  caf::replies_to<exec_stop_atom, std::string>::with<int32_t>>;

} // namespace nb
