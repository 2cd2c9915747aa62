// Subagents: background runs started by the spawn tool, and what their
// manager tells sessions about them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/chat.hpp"
#include "messages/model.hpp"

namespace nb {

/// A spawn tool call from a turn: the manager answers with the tool result
/// (at once for a background run, at the end for wait=true).
struct spawn_subagent {
  std::string session_key; ///< the session whose turn called spawn
  std::string channel;     ///< where the result is announced
  std::string chat_id;
  std::string model;       ///< the model the turn used
  tool_call call;          ///< arguments: task, label, temperature, wait
  /// The calling agent: the subagent works in its workspace with its tools
  /// and reports back into its session.
  std::string agent = "main";
  std::string workspace{}; ///< "" = the manager's (main's)
  caf::actor tools{};      ///< a tools_actor; null = the manager's
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, spawn_subagent& x) {
  return f(caf::meta::type_name("spawn_subagent"), x.session_key, x.channel,
           x.chat_id, x.model, x.call, x.agent, x.workspace, x.tools);
}

/// One running subagent, as /status, /stats and tests see it.
struct subagent_info {
  std::string id; ///< 8 hex characters
  std::string label;
  std::string task;
  std::string session_key; ///< the session that started it
  int64_t started_ms = 0;  ///< Unix milliseconds
  bool stopping = false;   ///< /stop reached it; it is winding down
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, subagent_info& x) {
  return f(caf::meta::type_name("subagent_info"), x.id, x.label, x.task,
           x.session_key, x.started_ms, x.stopping);
}

/// A send_to_agent tool call: a turn of agent `to` in session
/// "{to}:agent:{from}", whose answer becomes the tool result. The manager
/// checks agents.list[].canMessage and the depth limit.
struct agent_message {
  std::string from;  ///< the calling agent
  std::string session_key; ///< the calling session (for logs)
  int32_t depth = 0; ///< the calling turn's agent_depth
  tool_call call;    ///< arguments: agent, message
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, agent_message& x) {
  return f(caf::meta::type_name("agent_message"), x.from, x.session_key,
           x.depth, x.call);
}

/// The inbound metadata key of a session message's envelope (the
/// original's "_session_message": message_id, created_at_ms, expect_reply,
/// source_handle, source_session_key, target_session_key). Such input is
/// never a command.
inline constexpr const char* session_message_meta_key = "_session_message";

/// A send_session_message call, resolved by the tool: the manager applies
/// the caller's rate limit and hands `content` to the entry (the durable
/// inbox in a gateway) as user input of the target session. Answered with
/// "" once handed over, else the error text for the model.
struct session_mail {
  std::string agent = "main"; ///< whose sessions both are
  std::string source_key;     ///< the calling session (full key)
  std::string source_handle;  ///< bare
  std::string source_channel; ///< where a no-reply notice goes
  std::string source_chat_id;
  std::string target_key; ///< full key, never the source's
  std::string target_handle;
  std::string content;
  bool expect_reply = false;
  int32_t reply_timeout_seconds = 0; ///< 5..60 when expect_reply
  int32_t max_per_minute = 6;        ///< tools.maxSessionMessagesPerMinute
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_mail& x) {
  return f(caf::meta::type_name("session_mail"), x.agent, x.source_key,
           x.source_handle, x.source_channel, x.source_chat_id, x.target_key,
           x.target_handle, x.content, x.expect_reply, x.reply_timeout_seconds,
           x.max_per_minute);
}

/// Where finished subagents announce their results (the router).
using inbound_sink = caf::typed_actor<caf::reacts_to<inbound_msg>>;

/// Stop a session's subagents; answers how many were stopped.
using subagent_stop_atom = caf::atom_constant<caf::atom("substop")>;
/// How many subagents of a session are running.
using subagent_count_atom = caf::atom_constant<caf::atom("subcount")>;
/// Every running subagent.
using subagent_list_atom = caf::atom_constant<caf::atom("sublist")>;

} // namespace nb
