// The terminal channel: sends what the user types to the router and prints
// the streamed answer (rendered Markdown on a terminal) and the tools that
// run. Ctrl+C during a turn sends /stop; at an empty prompt it leaves.
#pragma once

#include <optional>
#include <string>

#include <caf/actor_system.hpp>

#include "messages/interfaces.hpp"

namespace nb {

struct cli_options {
  /// "cli:direct" by default; a value without ':' is taken as the chat id.
  std::string session = "cli:direct";
  /// Set: send this one message, print the answer, return.
  std::optional<std::string> message;
  bool stream = true;
  bool show_tools = true;
  /// false (--no-markdown): the reply exactly as the model wrote it and no
  /// terminal styling anywhere, as the original prints it then (plain
  /// Text). true: on a terminal, the reply rendered from its Markdown (on a
  /// pipe, the text as written: scripts get what the model said).
  bool markdown = true;
  int reply_timeout_s = 3600;
  /// The input history ("" = none): <config dir>/history/cli.
  std::string history_file;
};

/// Runs the chat; returns the process exit code (0, or 1 when a one-shot
/// turn ended in an error). Call on the main thread with SIGINT blocked in
/// every other thread (the chat takes Ctrl+C itself).
int run_cli_chat(caf::actor_system& sys, router_actor router,
                 const cli_options& opts);

} // namespace nb
