// Who accepts what: every typed actor interface, declared once.
// Implementations live in actors/<concern>/. (outbound_sink is declared in
// chat.hpp and model_delta_sink in model.hpp, because messages carry them.)
#pragma once

#include <string>
#include <vector>

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/atoms.hpp"
#include "messages/chat.hpp"
#include "messages/evaluation.hpp"
#include "messages/model.hpp"
#include "messages/runner.hpp"
#include "messages/session.hpp"
#include "messages/stats.hpp"
#include "messages/store.hpp"
#include "messages/tool.hpp"

namespace nb {

/// Routes inbound messages to one session actor per session key.
/// `flush_atom` waits until no turn runs anywhere and answers how many
/// sessions were asked (used for an orderly shutdown).
using router_actor
  = caf::typed_actor<caf::reacts_to<inbound_msg>,
                     caf::reacts_to<session_idle>,
                     caf::reacts_to<session_services>,
                     caf::replies_to<live_sessions_atom>::with<int32_t>,
                     caf::replies_to<flush_atom>::with<int32_t>>;

/// One conversation: runs its turns strictly one after another.
/// `flush_atom` is answered once no turn is running. `take_injections_atom`
/// hands the running turn's runner up to three plain messages that arrived
/// while it ran (empty when none).
using session_actor
  = caf::typed_actor<caf::reacts_to<inbound_msg>,
                     caf::replies_to<flush_atom>::with<bool>,
                     caf::replies_to<take_injections_atom>::with<
                       std::vector<inbound_msg>>>;

/// One turn's model/tool loop; also the sink of its own stream deltas.
/// `injections_ready_atom`: its session holds messages to inject at the next
/// check; `cancel_turn_atom`: end the run now with what it has;
/// `user_saved_atom`: the turn's user message is durable, tool calls may run.
using runner_actor
  = caf::typed_actor<caf::replies_to<run_turn>::with<turn_outcome>,
                     caf::reacts_to<model_delta>,
                     caf::reacts_to<model_retry_notice>,
                     caf::reacts_to<injections_ready_atom>,
                     caf::reacts_to<cancel_turn_atom>,
                     caf::reacts_to<user_saved_atom>>;

/// The durable inbox in front of the entry router: journals every inbound
/// message (fsync'd, group commit) before passing it on, answers
/// inbox_record with the receipt adapters wait for before acknowledging
/// their platform, forgets entries as sessions settle them, and replays the
/// unsettled ones at start (actors/inbox).
using inbox_actor = router_actor::extend<
  caf::replies_to<inbox_record>::with<inbox_receipt>,
  caf::reacts_to<inbox_settle>>;

// Declared in session.hpp, because session_services carries them:
//   provider_actor      calls the LLM; blocking HTTP runs in detached workers
//   tool_executor_actor runs tool calls: a worker, the read-only pool, a lane
//   tools_actor         the tools front: lists tools, routes calls to lanes
//   store_actor         owns the session files on disk
//   stats_actor         collects figures; answers JSON or Prometheus text

/// Owns the service actors, restarts a crashed one and hands the router the
/// fresh handles; answers with the router and the current services.
using supervisor_actor = caf::typed_actor<
  caf::replies_to<caf::get_atom>::with<router_actor, session_services>>;

// -- evaluator (issue 4)

/// The notification gate: one model call with the evaluate_notification
/// tool; anything but a usable tool call gives the caller's default.
/// `session_services` hands it a restarted provider.
using evaluator_actor
  = caf::typed_actor<caf::replies_to<eval_request>::with<eval_verdict>,
                     caf::reacts_to<session_services>>;

// -- cron (issue 4)

/// Owns the schedule in <workspace>/cron/jobs.json: fires each due job as
/// an inbound message into the router, and the original's protected
/// system jobs to their owners (`dream`: memory consolidation, `heartbeat`:
/// the heartbeat actor). `tick_atom` is its own timer; `router_actor` tells
/// it where to deliver (it fires nothing before); `session_services` hands
/// it the provider Dream calls; `cron_run_atom` with a job id runs that job
/// now and answers what happened.
using cron_actor = caf::typed_actor<
  caf::reacts_to<caf::tick_atom>, caf::reacts_to<router_actor>,
  caf::reacts_to<session_services>,
  caf::replies_to<cron_run_atom, std::string>::with<std::string>>;

// -- heartbeat (issue 4)

/// Every gateway.heartbeat.intervalS: runs HEARTBEAT.md's active tasks in
/// session "heartbeat" and lets the evaluator decide whether the result
/// reaches the user. `outbound_msg` is the turn's reply coming back;
/// `heartbeat_run_atom` runs one beat now and answers what happened;
/// `session_services` hands it restarted services.
using heartbeat_actor
  = caf::typed_actor<caf::reacts_to<caf::tick_atom>,
                     caf::reacts_to<outbound_msg>,
                     caf::reacts_to<session_services>,
                     caf::replies_to<heartbeat_run_atom>::with<std::string>>;

} // namespace nb
