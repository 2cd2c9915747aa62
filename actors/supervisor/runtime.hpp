// The process around the actors: builds the actor system (sharing scheduler,
// message types), starts the supervisor and shuts everything down in order.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"
#include "messages/interfaces.hpp"

namespace nb {

class runtime {
public:
  /// Starts the actor tree for `cfg`. Throws std::runtime_error with a clear
  /// message when the session directory cannot be prepared. `background`
  /// (the gateway) also runs cron, the heartbeat, the evaluator and the
  /// chat channels.
  explicit runtime(const settings& cfg, bool background = false);
  ~runtime();

  caf::actor_system& system() { return *sys_; }
  router_actor router() const { return router_; }
  stats_actor stats() const { return svc_.stats; }
  /// The channel manager (null without channels).
  channel_manager_actor channels() const {
    return caf::actor_cast<channel_manager_actor>(svc_.outbox);
  }

  /// Waits (at most `drain`) until no turn is running, then stops every
  /// actor. Every finished turn is already fsync'd by the store.
  void shutdown(std::chrono::seconds drain);

private:
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  supervisor_actor supervisor_;
  router_actor router_;
  session_services svc_;
  bool stopped_ = false;
};

/// Steady-clock microseconds at process start (set by the first runtime).
int64_t process_start_us();

} // namespace nb
