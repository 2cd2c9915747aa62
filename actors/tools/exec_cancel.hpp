// Tools: how one exec run hears /stop. It registers a small blocking
// mailbox with the exec watch and polls it between reads of the child's
// output, so the thread that reaps the child is the one that kills it
// (no signal can reach a recycled process id).
#pragma once

#include <memory>
#include <optional>

#include "actors/tools/exec_prepare.hpp"
#include "actors/tools/registry.hpp"

namespace caf {
class scoped_actor;
} // namespace caf

namespace nb {

class exec_cancel {
public:
  /// Registers with `ctx.watch` (a no-op without a watch or system).
  explicit exec_cancel(const tool_context& ctx);
  ~exec_cancel();

  exec_cancel(const exec_cancel&) = delete;
  exec_cancel& operator=(const exec_cancel&) = delete;

  /// Whether the call was stopped before it could start (or cannot be
  /// stopped: the watch is gone).
  bool refused() const {
    return refused_;
  }

  /// Returns whether a stop arrived (checks the mailbox without waiting).
  bool requested();

private:
  std::unique_ptr<caf::scoped_actor> self_;
  bool refused_ = false;
  bool requested_ = false;
};

/// Runs the child `launch` describes with `opts` (inside the sandbox when the
/// launch says so), stoppable by /stop through `ctx`; nullopt when a stop
/// came before it could start. `exec` and `run_cli_app` both run this way.
std::optional<process_result> run_stoppable(const exec_launch& launch,
                                            process_options opts,
                                            const tool_context& ctx);

} // namespace nb
