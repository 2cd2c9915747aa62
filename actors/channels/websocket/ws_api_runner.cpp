#include "actors/channels/websocket/ws_api_runner.hpp"

#include <deque>
#include <utility>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <nlohmann/json.hpp>

#include "actors/common/blocking_task.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/timed_request.hpp"

namespace nb::ws {

namespace {

struct api_runner_state {
  static inline const char* name = "webui_api";
  api_function fn;
  std::chrono::seconds limit{300};
  /// Calls not started yet, in arrival order, with whom to answer.
  std::deque<std::pair<api_call, caf::typed_response_promise<api_reply>>>
    waiting;
  bool busy = false; ///< a call is running
};

using runner_pointer = api_runner_actor::stateful_pointer<api_runner_state>;

api_reply failed(const std::string& what) {
  return {500, nlohmann::json{{"detail", what}}.dump(
                 -1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

/// Starts the oldest waiting call unless one runs.
void run_next(runner_pointer self) {
  auto& st = self->state;
  if (st.busy || st.waiting.empty())
    return;
  st.busy = true;
  auto [call, rp] = std::move(st.waiting.front());
  st.waiting.pop_front();
  auto task =
    blocking_task(self, "nb.ws-api", [fn = st.fn, call] { return fn(call); });
  auto done = [self, rp](api_reply reply) mutable {
    rp.deliver(std::move(reply));
    self->state.busy = false;
    run_next(self);
  };
  timed_request(self, task, st.limit, caf::get_atom::value)
    .then([done](api_reply& reply) mutable { done(std::move(reply)); },
          [self, done, name = call.name](caf::error& err) mutable {
            done(failed("the WebUI call " + name
                        + " failed: " + self->system().render(err)));
          });
}

api_runner_actor::behavior_type api_runner_impl(runner_pointer self,
                                                api_function fn,
                                                std::chrono::seconds limit) {
  self->state.fn = std::move(fn);
  self->state.limit = limit;
  return {
    guard("webui_api",
          [self](api_call& call) -> caf::result<api_reply> {
            auto rp = self->make_response_promise<api_reply>();
            self->state.waiting.emplace_back(std::move(call), rp);
            run_next(self);
            return rp;
          }),
  };
}

} // namespace

api_runner_actor spawn_api_runner(caf::actor_system& sys, api_function fn,
                                  std::chrono::seconds limit) {
  return sys.spawn(api_runner_impl, std::move(fn), limit);
}

} // namespace nb::ws
