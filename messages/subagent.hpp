// Subagents: background runs started by the spawn tool, and what their
// manager tells sessions about them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, spawn_subagent& x) {
  return f(caf::meta::type_name("spawn_subagent"), x.session_key, x.channel,
           x.chat_id, x.model, x.call);
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

/// Where finished subagents announce their results (the router).
using inbound_sink = caf::typed_actor<caf::reacts_to<inbound_msg>>;

/// Stop a session's subagents; answers how many were stopped.
using subagent_stop_atom = caf::atom_constant<caf::atom("substop")>;
/// How many subagents of a session are running.
using subagent_count_atom = caf::atom_constant<caf::atom("subcount")>;
/// Every running subagent.
using subagent_list_atom = caf::atom_constant<caf::atom("sublist")>;

} // namespace nb
