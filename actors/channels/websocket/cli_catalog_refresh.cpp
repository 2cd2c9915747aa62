#include "actors/channels/websocket/cli_catalog_refresh.hpp"

#include <chrono>

#include <caf/scoped_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/blocking_task.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/tools/cli_catalog.hpp"

namespace nb::ws {

namespace {

/// The original's _CATALOG_REFRESH_RETRY_SECONDS.
constexpr auto catalog_refresh_spacing = std::chrono::seconds(60);
/// Three registries at 15 s each, with room to spare.
constexpr auto catalog_refresh_limit = std::chrono::seconds(120);

struct catalog_refresh_state {
  // Declared, so the state is no aggregate: CAF 0.17 builds a state from
  // the actor's pointer when it can, and C++20 would then set `running`
  // from that pointer (always true: no refresh would ever start).
  catalog_refresh_state() = default;
  static inline const char* name = "cli_catalog_refresh";
  bool running = false;
  bool started_once = false;
  std::chrono::steady_clock::time_point last_started;
};

using refresher_pointer =
  cli_catalog_refresher::stateful_pointer<catalog_refresh_state>;

/// Fetches every registry again on a thread of its own; `running` until
/// it is over (its failures are logged: the list keeps what it had).
void run_catalog_refresh(refresher_pointer self, const std::string& config_dir,
                         int32_t ttl_s) {
  self->state.running = true;
  auto task = blocking_task(self, "nb.cli-catalog", [config_dir, ttl_s] {
    auto fetched = load_cli_catalog(config_dir, ttl_s, catalog_mode::refetch);
    if (!fetched.error.empty())
      log::get("webui")->warn("CLI Apps catalog refresh: {}", fetched.error);
    return true;
  });
  timed_request(self, task, catalog_refresh_limit, caf::get_atom::value)
    .then([self](bool) { self->state.running = false; },
          [self](caf::error& err) {
            self->state.running = false;
            log::get("webui")->warn("CLI Apps catalog refresh: {}",
                                    self->system().render(err));
          });
}

cli_catalog_refresher::behavior_type
catalog_refresher_impl(refresher_pointer self) {
  return {
    guard("webui",
          [self](cli_refresh_atom, const std::string& config_dir,
                 int32_t ttl_s) -> bool {
            auto& st = self->state;
            if (st.running)
              return true;
            auto now = std::chrono::steady_clock::now();
            if (st.started_once
                && now - st.last_started < catalog_refresh_spacing)
              return false;
            st.started_once = true;
            st.last_started = now;
            run_catalog_refresh(self, config_dir, ttl_s);
            return true;
          }),
  };
}

} // namespace

cli_catalog_refresher spawn_cli_catalog_refresher(caf::actor_system& sys) {
  return sys.spawn(catalog_refresher_impl);
}

bool start_cli_catalog_refresh(caf::actor_system& sys,
                               const cli_catalog_refresher& refresher,
                               const std::string& config_dir, int ttl_s) {
  bool pending = false;
  caf::scoped_actor self{sys};
  self
    ->request(refresher, std::chrono::seconds(5), cli_refresh_atom::value,
              config_dir, static_cast<int32_t>(ttl_s))
    .receive([&](bool running) { pending = running; },
             [&](caf::error&) { pending = false; });
  return pending;
}

} // namespace nb::ws
