// Every type that travels between actors, in one place: the table of contents
// of the message vocabulary. Registered by register_messages().
#pragma once

#include <caf/type_id.hpp>

#include "messages/channel.hpp"
#include "messages/cluster.hpp"
#include "messages/errc.hpp"
#include "messages/interfaces.hpp"
#include "messages/turn.hpp"

CAF_BEGIN_TYPE_ID_BLOCK(nb, caf::first_custom_type_id)

  // -- channel traffic
  CAF_ADD_TYPE_ID(nb, (nb::outbound_kind))
  CAF_ADD_TYPE_ID(nb, (nb::outbound_msg))
  CAF_ADD_TYPE_ID(nb, (nb::inbound_msg))
  CAF_ADD_TYPE_ID(nb, (nb::session_idle))
  CAF_ADD_TYPE_ID(nb, (nb::session_services))

  // -- turns
  CAF_ADD_TYPE_ID(nb, (nb::turn_state))
  CAF_ADD_TYPE_ID(nb, (nb::turn_event))
  CAF_ADD_TYPE_ID(nb, (nb::state_trace))
  CAF_ADD_TYPE_ID(nb, (nb::run_turn))
  CAF_ADD_TYPE_ID(nb, (nb::turn_outcome))

  // -- model calls
  CAF_ADD_TYPE_ID(nb, (nb::tool_call))
  CAF_ADD_TYPE_ID(nb, (nb::token_usage))
  CAF_ADD_TYPE_ID(nb, (nb::model_delta))
  CAF_ADD_TYPE_ID(nb, (nb::model_retry_notice))
  CAF_ADD_TYPE_ID(nb, (nb::model_request))
  CAF_ADD_TYPE_ID(nb, (nb::model_reply))
  CAF_ADD_TYPE_ID(nb, (nb::model_cancel))

  // -- tools
  CAF_ADD_TYPE_ID(nb, (nb::tool_spec))
  CAF_ADD_TYPE_ID(nb, (std::vector<nb::tool_spec>))
  CAF_ADD_TYPE_ID(nb, (nb::tool_request))
  CAF_ADD_TYPE_ID(nb, (nb::tool_result))
  CAF_ADD_TYPE_ID(nb, (nb::tool_catalog))

  // -- session store
  CAF_ADD_TYPE_ID(nb, (nb::session_load))
  CAF_ADD_TYPE_ID(nb, (nb::session_snapshot))
  CAF_ADD_TYPE_ID(nb, (nb::session_append))
  CAF_ADD_TYPE_ID(nb, (nb::session_replace))

  // -- stats
  CAF_ADD_TYPE_ID(nb, (nb::actor_sample))
  CAF_ADD_TYPE_ID(nb, (nb::turn_sample))
  CAF_ADD_TYPE_ID(nb, (nb::provider_sample))
  CAF_ADD_TYPE_ID(nb, (nb::tool_sample))
  CAF_ADD_TYPE_ID(nb, (nb::gauge_sample))

  // -- errors
  CAF_ADD_TYPE_ID(nb, (nb::errc))

  // -- typed handles (they travel inside messages and across nodes)
  CAF_ADD_TYPE_ID(nb, (nb::outbound_sink))
  CAF_ADD_TYPE_ID(nb, (nb::model_delta_sink))
  CAF_ADD_TYPE_ID(nb, (nb::router_actor))
  CAF_ADD_TYPE_ID(nb, (nb::session_actor))
  CAF_ADD_TYPE_ID(nb, (nb::runner_actor))
  CAF_ADD_TYPE_ID(nb, (nb::provider_actor))
  CAF_ADD_TYPE_ID(nb, (nb::tool_executor_actor))
  CAF_ADD_TYPE_ID(nb, (nb::tools_actor))
  CAF_ADD_TYPE_ID(nb, (nb::store_actor))
  CAF_ADD_TYPE_ID(nb, (nb::stats_actor))
  CAF_ADD_TYPE_ID(nb, (nb::supervisor_actor))

  // -- channels
  CAF_ADD_TYPE_ID(nb, (nb::channel_status))
  CAF_ADD_TYPE_ID(nb, (std::vector<nb::channel_status>))
  CAF_ADD_TYPE_ID(nb, (nb::channel_actor))
  CAF_ADD_TYPE_ID(nb, (nb::channel_manager_actor))

  // -- evaluator
  CAF_ADD_TYPE_ID(nb, (nb::eval_request))
  CAF_ADD_TYPE_ID(nb, (nb::eval_verdict))
  CAF_ADD_TYPE_ID(nb, (nb::evaluator_actor))

  // -- session: messages injected into a running turn
  CAF_ADD_TYPE_ID(nb, (std::vector<nb::inbound_msg>))

  // -- cron
  CAF_ADD_TYPE_ID(nb, (nb::cron_actor))

  // -- session activity
  CAF_ADD_TYPE_ID(nb, (nb::session_list))
  CAF_ADD_TYPE_ID(nb, (nb::session_activity))
  CAF_ADD_TYPE_ID(nb, (nb::session_listing))

  // -- heartbeat
  CAF_ADD_TYPE_ID(nb, (nb::heartbeat_actor))

  // -- cluster
  CAF_ADD_TYPE_ID(nb, (nb::session_release))
  CAF_ADD_TYPE_ID(nb, (nb::node_welcome))
  CAF_ADD_TYPE_ID(nb, (nb::node_status))
  CAF_ADD_TYPE_ID(nb, (std::vector<nb::node_status>))
  CAF_ADD_TYPE_ID(nb, (nb::node_join))
  CAF_ADD_TYPE_ID(nb, (nb::node_ready))
  CAF_ADD_TYPE_ID(nb, (nb::relay_done))
  CAF_ADD_TYPE_ID(nb, (nb::member_router_actor))
  CAF_ADD_TYPE_ID(nb, (nb::node_actor))
  CAF_ADD_TYPE_ID(nb, (nb::cluster_front_actor))

  // -- cancelling running tools (issue-3b)
  CAF_ADD_TYPE_ID(nb, (nb::cancel_tools))

  // -- subagents (issue-3b)
  CAF_ADD_TYPE_ID(nb, (nb::spawn_subagent))
  CAF_ADD_TYPE_ID(nb, (nb::subagent_info))
  CAF_ADD_TYPE_ID(nb, (std::vector<nb::subagent_info>))
  CAF_ADD_TYPE_ID(nb, (nb::inbound_sink))
  CAF_ADD_TYPE_ID(nb, (nb::subagents_actor))

  // -- the durable inbox (issue 13)
  CAF_ADD_TYPE_ID(nb, (nb::inbox_record))
  CAF_ADD_TYPE_ID(nb, (nb::inbox_receipt))
  CAF_ADD_TYPE_ID(nb, (nb::inbox_settle))
  CAF_ADD_TYPE_ID(nb, (nb::inbox_settle_sink))
  CAF_ADD_TYPE_ID(nb, (nb::inbox_actor))

  // -- many agents: the workspace actor, send_to_agent (issue 15)
  CAF_ADD_TYPE_ID(nb, (nb::prompt_request))
  CAF_ADD_TYPE_ID(nb, (nb::prompt_reply))
  CAF_ADD_TYPE_ID(nb, (nb::workspace_append))
  CAF_ADD_TYPE_ID(nb, (nb::workspace_figures))
  CAF_ADD_TYPE_ID(nb, (nb::workspace_actor))
  CAF_ADD_TYPE_ID(nb, (nb::agent_message))

  // -- send_session_message (issue 19)
  CAF_ADD_TYPE_ID(nb, (nb::session_mail))

CAF_END_TYPE_ID_BLOCK(nb)

namespace caf {
class actor_system_config;
} // namespace caf

namespace nb {

/// Registers every message type and the nb error renderer with `cfg`.
/// Call it on every node, before the actor_system is built.
void register_messages(caf::actor_system_config& cfg);

} // namespace nb
