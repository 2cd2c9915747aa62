#include "actors/tools/exec_cancel.hpp"

#include <chrono>

#include <caf/after.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/common/log.hpp"
#include "actors/tools/exec_watch.hpp"
#include "actors/tools/sandbox/sandbox_probe.hpp"
#include "actors/tools/sandbox/sandboxed_run.hpp"
#include "actors/tools/sandbox/warm_sandbox_pool.hpp"

namespace nb {

exec_cancel::exec_cancel(const tool_context& ctx) {
  if (!ctx.system || !ctx.watch)
    return;
  self_ = std::make_unique<caf::scoped_actor>(*ctx.system);
  auto& self = *self_;
  // Runs on a detached tool worker's thread, so waiting here is allowed.
  // A watch that is gone or does not answer (the tools are stopping, or
  // the call came after its turn ended) means nobody could stop the
  // command: it is not started. Started anyway, it ran on unstoppable and
  // the gateway's shutdown waited for it (up to the command's timeout).
  self->request(ctx.watch, std::chrono::seconds(5),
                watch_exec{ctx.session_key, ctx.call_id,
                           caf::actor_cast<exec_canceller>(self)})
    .receive([this](bool cancelled) { refused_ = cancelled; },
             [this, &ctx](caf::error& err) {
               refused_ = true;
               log::get("tools")->warn(
                 "[{}] command not started: the exec watch is unreachable "
                 "({})",
                 ctx.session_key, ctx.system->render(err));
             });
}

exec_cancel::~exec_cancel() = default;

bool exec_cancel::requested() {
  if (!self_ || requested_)
    return requested_;
  (*self_)->receive([this](cancel_turn_atom) { requested_ = true; },
                    caf::after(std::chrono::seconds(0)) >> [] {});
  return requested_;
}

std::optional<process_result> run_stoppable(const exec_launch& launch,
                                            process_options opts,
                                            const tool_context& ctx) {
  exec_cancel stop{ctx};
  if (stop.refused())
    return std::nullopt;
  opts.cancelled = [&stop] { return stop.requested(); };
  return launch.sandboxed
           ? run_sandboxed_warm(std::move(opts), sandbox_request_for(launch),
                                sandbox_status_for(),
                                ctx.warm_sandboxes.get())
           : run_process(opts);
}

} // namespace nb
