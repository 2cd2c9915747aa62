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
                     caf::replies_to<live_sessions_atom>::with<int32_t>,
                     caf::replies_to<flush_atom>::with<int32_t>>;

/// One conversation: runs its turns strictly one after another.
/// `flush_atom` is answered once no turn is running.
using session_actor
  = caf::typed_actor<caf::reacts_to<inbound_msg>,
                     caf::replies_to<flush_atom>::with<bool>>;

/// One turn's model/tool loop; also the sink of its own stream deltas.
using runner_actor
  = caf::typed_actor<caf::replies_to<run_turn>::with<turn_outcome>,
                     caf::reacts_to<model_delta>,
                     caf::reacts_to<model_retry_notice>>;

/// Calls the LLM; blocking HTTP runs in its pool of detached workers.
using provider_actor
  = caf::typed_actor<caf::replies_to<model_request>::with<model_reply>>;

/// Runs tool calls: a worker, the read-only pool or an exclusive lane.
using tool_executor_actor
  = caf::typed_actor<caf::replies_to<tool_request>::with<tool_result>>;

/// The tools front: lists the tools and routes each call to its lane.
using tools_actor = tool_executor_actor::extend<
  caf::replies_to<list_tools_atom>::with<std::vector<tool_spec>>>;

/// Owns the session files on disk.
using store_actor
  = caf::typed_actor<caf::replies_to<session_load>::with<session_snapshot>,
                     caf::replies_to<session_append>::with<caf::ok_atom>,
                     caf::replies_to<session_replace>::with<caf::ok_atom>>;

/// Collects figures; answers with JSON or Prometheus text.
using stats_actor = caf::typed_actor<
  caf::reacts_to<actor_sample>, caf::reacts_to<turn_sample>,
  caf::reacts_to<provider_sample>, caf::reacts_to<tool_sample>,
  caf::reacts_to<gauge_sample>,
  caf::replies_to<stats_atom, std::string>::with<std::string>>;

} // namespace nb
