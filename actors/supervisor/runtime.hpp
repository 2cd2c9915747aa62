// The process around the actors: builds the actor system (sharing scheduler,
// message types), starts the supervisor and shuts everything down in order.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "actors/store/lease.hpp"
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
  /// The same, letting `prepare` adjust the actor system's configuration
  /// first (the cluster loads the io middleman); a non-empty answer is an
  /// error and is thrown as std::runtime_error.
  runtime(const settings& cfg, bool background,
          const std::function<std::string(caf::actor_system_config&)>& prepare);
  ~runtime();

  caf::actor_system& system() { return *sys_; }
  router_actor router() const { return router_; }
  stats_actor stats() const { return svc_.stats; }
  /// The channel manager (null without channels).
  channel_manager_actor channels() const {
    return caf::actor_cast<channel_manager_actor>(svc_.outbox);
  }
  session_services services() const { return svc_; }
  /// Leases in the session store (files or PostgreSQL, like the sessions):
  /// cron and heartbeat take the "schedules" lease before running, so a
  /// second gateway on the same store stays quiet.
  lease_actor leases() const { return leases_; }

  /// Waits (at most `drain`) until no turn is running, then stops every
  /// actor. Every finished turn is already fsync'd by the store.
  void shutdown(std::chrono::seconds drain);

private:
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  supervisor_actor supervisor_;
  router_actor router_;
  session_services svc_;
  lease_actor leases_;
  bool stopped_ = false;
};

/// Steady-clock microseconds at process start (set by the first runtime).
int64_t process_start_us();

} // namespace nb
