// The cron actor: wakes when the next job is due (and every few seconds to
// notice jobs that the cron tool, `nanobot cron` or the original's
// cron/action.jsonl added), takes the due jobs from the store and runs each
// user job as a turn in the session that created it. The original's
// protected system jobs are never model turns: "dream" runs a Dream worker
// (memory consolidation), "heartbeat" asks the heartbeat actor for a beat.
// It lives on the scheduler; its file work runs in blocking tasks, one at a
// time (cron_io.hpp), and its timer is on CAF's clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include <caf/fwd.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/cron/job.hpp"
#include "actors/cron/job_store.hpp"
#include "messages/control.hpp"
#include "messages/interfaces.hpp"

namespace nb {

struct cron_config {
  std::string workspace; ///< absolute; jobs live in <workspace>/cron
  std::string agent = "main"; ///< whose sessions its jobs run in
  /// The gateway's durable inbox: a job's turn is journaled before its run
  /// is recorded, so a crash between the two repeats it (recognised by the
  /// inbox) instead of losing it. Null: turns go to the router unjournaled.
  inbox_actor inbox;
  /// How long to wait for the inbox's receipt before trying again later.
  std::chrono::seconds journal_timeout{30};
  /// How often the store is checked for changes made by others.
  std::chrono::milliseconds poll{2000};
  int64_t grace_ms = 15 * 60 * 1000;
  /// Wall-clock epoch milliseconds (tests may pass their own).
  std::function<int64_t()> now_ms;
  /// The original's start-up reconciliation (actors/cron/system_jobs):
  /// these system jobs are (re)registered in this agent's store, those ids
  /// removed, before the first tick.
  std::vector<cron::job> system_jobs;
  std::vector<std::string> retired_system_jobs;
  /// This agent's heartbeat; runs the "heartbeat" job (null: skipped).
  heartbeat_actor heartbeat;
  /// The model Dream asks ("" = the provider's default) and its provider.
  std::string dream_model;
  std::string dream_provider;
  std::chrono::seconds dream_timeout{300};
};

struct cron_state {
  cron_state() = default;
  static inline const char* name = "cron";
  cron_config cfg;
  /// Used only by the file work (cron_io.hpp), one piece at a time.
  std::shared_ptr<cron::job_store> store;
  bool io_busy = false; ///< a piece of file work runs
  std::deque<std::function<void()>> io_waiting; ///< the next ones, in order
  router_actor router;
  stats_actor stats;
  provider_actor provider; ///< for Dream (from session_services)
  bool dream_running = false;
  std::set<caf::actor_addr> dream_workers; ///< linked, until their exit
  std::string seen_stamp;            ///< the store as we last read it
  std::optional<int64_t> next_wake_ms;
  uint64_t timer_gen = 0; ///< the newest tick timer; older ones lapse
  actor_meter meter;
  std::shared_ptr<spdlog::logger> log;
};

using cron_pointer = cron_admin_actor::stateful_pointer<cron_state>;

/// Besides cron_actor's messages, the WebUI's (messages/control.hpp): the
/// jobs as the page lists them and its changes, made here so that the
/// scheduler sees them at once and stays the only writer of jobs.json.
cron_admin_actor::behavior_type cron_impl(cron_pointer self, cron_config cfg,
                                    stats_actor stats, provider_actor provider);

/// Spawns the cron actor; it fires nothing until it has a router.
/// Pass `services` so Dream has a provider (a restart sends fresh ones).
cron_admin_actor spawn_cron(caf::actor_system& sys, cron_config cfg,
                            stats_actor stats, provider_actor provider = {});

/// The inbound message that runs `job` in its session of `agent`; its
/// message id names the job and the run time it is due for (`slot_ms`).
inbound_msg cron_turn(const cron::job& job, int64_t now_ms,
                      const std::string& agent = "main", int64_t slot_ms = 0);

} // namespace nb
