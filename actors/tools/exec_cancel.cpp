#include "actors/tools/exec_cancel.hpp"

#include <chrono>

#include <caf/after.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/tools/exec_watch.hpp"

namespace nb {

exec_cancel::exec_cancel(const tool_context& ctx) {
  if (!ctx.system || !ctx.watch)
    return;
  self_ = std::make_unique<caf::scoped_actor>(*ctx.system);
  auto& self = *self_;
  // Runs on a detached tool worker's thread, so waiting here is allowed;
  // a watch that does not answer only costs the ability to stop.
  self->request(ctx.watch, std::chrono::seconds(5),
                watch_exec{ctx.session_key, ctx.call_id,
                           caf::actor_cast<exec_canceller>(self)})
    .receive([this](bool cancelled) { refused_ = cancelled; },
             [](caf::error&) {});
}

exec_cancel::~exec_cancel() = default;

bool exec_cancel::requested() {
  if (!self_ || requested_)
    return requested_;
  (*self_)->receive([this](cancel_turn_atom) { requested_ = true; },
                    caf::after(std::chrono::seconds(0)) >> [] {});
  return requested_;
}

} // namespace nb
