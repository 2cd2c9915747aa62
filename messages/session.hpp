// Session lifecycle between the router and its session actors.
#pragma once

#include <cstdint>
#include <string>

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/chat.hpp"
#include "messages/inbox.hpp"
#include "messages/model.hpp"
#include "messages/runner.hpp"
#include "messages/stats.hpp"
#include "messages/store.hpp"
#include "messages/subagent.hpp"
#include "messages/tool.hpp"
#include "messages/workspace.hpp"
#include "messages/atoms.hpp"

namespace nb {

/// A session saw no message for a while and offers to quit. `received`
/// counts the inbound messages it got; the router lets it go only when that
/// equals what it forwarded, so no message is ever lost to a quitting session.
struct session_idle {
  std::string key;
  int64_t received = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_idle& x) {
  return f(caf::meta::type_name("session_idle"), x.key, x.received);
}

// The service handles a session needs, in one value. The supervisor sends a
// fresh set to the router when it restarts a crashed service; sessions
// spawned after that use the new handles.
using provider_actor
  = caf::typed_actor<caf::replies_to<model_request>::with<model_reply>,
                     caf::reacts_to<model_cancel>>;
using tool_executor_actor
  = caf::typed_actor<caf::replies_to<tool_request>::with<tool_result>>;
using tools_actor = tool_executor_actor::extend<
  caf::replies_to<list_tools_atom>::with<std::vector<tool_spec>>,
  caf::reacts_to<cancel_tools>,
  caf::replies_to<exec_stop_atom, std::string>::with<int32_t>>;
using store_actor
  = caf::typed_actor<caf::replies_to<session_load>::with<session_snapshot>,
                     caf::replies_to<session_append>::with<caf::ok_atom>,
                     caf::replies_to<session_replace>::with<caf::ok_atom>,
                     caf::replies_to<session_list>::with<session_listing>>;
using stats_actor = caf::typed_actor<
  caf::reacts_to<actor_sample>, caf::reacts_to<turn_sample>,
  caf::reacts_to<provider_sample>, caf::reacts_to<tool_sample>,
  caf::reacts_to<gauge_sample>,
  caf::replies_to<stats_atom, std::string>::with<std::string>>;

/// Owns the subagents of the whole process (see actors/subagents): runs
/// spawn calls, stops a session's subagents, counts them, and announces
/// results to the inbound_sink it was given; the three handles replace
/// restarted services.
using subagents_actor = caf::typed_actor<
  caf::replies_to<spawn_subagent>::with<tool_result>,
  caf::replies_to<agent_message>::with<tool_result>,
  caf::replies_to<session_mail>::with<std::string>,
  caf::replies_to<subagent_stop_atom, std::string>::with<int32_t>,
  caf::replies_to<subagent_count_atom, std::string>::with<int32_t>,
  caf::replies_to<subagent_list_atom>::with<std::vector<subagent_info>>,
  caf::reacts_to<inbound_sink>,
  caf::reacts_to<provider_actor, tools_actor, stats_actor>>;

struct session_services {
  store_actor store;
  provider_actor provider;
  tools_actor tools;
  stats_actor stats;
  outbound_sink outbox; ///< replies without a reply_to (null: none yet)
  subagents_actor subagents; ///< the spawn tool's manager (null: none)
  inbox_settle_sink inbox{};   ///< settles journaled messages (null: none)
  /// The agent's workspace files (null: the session reads them itself).
  workspace_actor workspace{};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_services& x) {
  return f(caf::meta::type_name("session_services"), x.store, x.provider,
           x.tools, x.stats, x.outbox, x.subagents, x.inbox, x.workspace);
}

} // namespace nb
