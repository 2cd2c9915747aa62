// The process around the actors: builds the actor system (the hand-off
// sharing scheduler, message types), starts the supervisor and shuts
// everything down in order.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "messages/lease.hpp"
#include "actors/supervisor/supervisor.hpp"
#include "config/settings.hpp"
#include "messages/channel.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// What a cluster node adds to the plain runtime.
struct runtime_hooks {
  std::function<std::string(caf::actor_system_config&)> prepare;
  entry_factory entry;
};

class runtime {
public:
  /// Starts the actor tree for `cfg`. Throws std::runtime_error with a clear
  /// message when the session directory cannot be prepared. `background`
  /// (the gateway) also runs cron, the heartbeat, the evaluator and the
  /// chat channels.
  explicit runtime(const settings& cfg, bool background = false);
  /// The same for a cluster node: `hooks.prepare` adjusts the actor
  /// system's configuration first (the io middleman; a non-empty answer is
  /// thrown as std::runtime_error), `hooks.entry` makes the router inbound
  /// enters through (the gateway node's front; then router() is that front).
  runtime(const settings& cfg, bool background, runtime_hooks hooks);
  ~runtime();

  caf::actor_system& system() { return *sys_; }
  /// Where inbound messages go: the router, or a cluster gateway's front.
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

  /// Stops new turns from starting and waits (at most `limit`) until no
  /// turn is running. Messages that wait stay queued (in the inbox
  /// journal, for the next start). Once only; shutdown() calls it too.
  void drain(std::chrono::seconds limit);

  /// drain(`drain_limit`) unless done, then stops every actor: what still
  /// runs is cancelled (model calls, tools and their process groups). Every
  /// finished turn is already fsync'd by the store.
  void shutdown(std::chrono::seconds drain_limit);

private:
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  supervisor_actor supervisor_;
  router_actor router_;
  session_services svc_;
  lease_actor leases_;
  std::string lease_owner_; ///< "" unless this process runs schedules
  bool drained_ = false;
  bool stopped_ = false;
};

/// Steady-clock microseconds at process start (set by the first runtime).
int64_t process_start_us();

} // namespace nb
