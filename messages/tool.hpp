// Tool execution: specs the model sees, calls, and results.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/type_name.hpp>

#include "messages/chat.hpp"
#include "messages/model.hpp"

namespace nb {

/// A tool as the model sees it, plus the flags that pick its lane.
struct tool_spec {
  std::string name;
  std::string description;
  std::string parameters_json; ///< JSON Schema object text
  bool read_only = false;      ///< never changes anything outside itself
  bool exclusive = false;      ///< must run alone even if read-only
  /// The function definition a model request lists, written once from the
  /// fields above by whoever made the spec ("" = written when needed; see
  /// actors/common/tool_definition.hpp).
  std::string definition_json{};
};

/// Returns whether consecutive calls of this tool may run side by side.
inline bool concurrency_safe(const tool_spec& x) {
  return x.read_only && !x.exclusive;
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tool_spec& x) {
  return f(caf::meta::type_name("tool_spec"), x.name, x.description,
           x.parameters_json, x.read_only, x.exclusive, x.definition_json);
}

/// The tools an agent's front offers, one immutable snapshot per change of
/// them (a settings reload, an MCP server's listing). A session keeps it
/// between turns, and the front sends each newer one to every session that
/// asked for it (tool_catalog_atom), so a change reaches the next turn.
struct tool_catalog {
  int64_t version = 0; ///< grows with each change of the front's tools
  /// False while an MCP server has not listed its tools: ask again at the
  /// next turn (the front then waits for it, as for a plain listing).
  bool complete = true;
  /// Shared, never copied, by the front and the sessions that hold it.
  std::shared_ptr<const std::vector<tool_spec>> specs;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tool_catalog& x) {
  // Across a process boundary (a cluster's tools node) the list travels as
  // values; within one, the snapshot is shared.
  std::vector<tool_spec> specs;
  if (x.specs)
    specs = *x.specs;
  auto loaded = caf::meta::load_callback([&]() -> caf::error {
    x.specs = std::make_shared<const std::vector<tool_spec>>(std::move(specs));
    return caf::none;
  });
  return f(caf::meta::type_name("tool_catalog"), x.version, x.complete, specs,
           loaded);
}

/// One call to run, with the session it belongs to.
struct tool_request {
  std::string session_key;
  tool_call call;
  std::string channel; ///< where the turn came from (message tool default)
  std::string chat_id;
  bool suppress_delivery = false; ///< the turn forbids direct delivery
  outbound_sink outbox;           ///< where the message tool sends (or null)
  /// The subagents_actor that hands session messages on (null: the turn
  /// cannot send any; send_session_message says so).
  caf::actor mail;
  /// The turn as the my tool shows it (JSON object text, "{}" = unknown):
  /// model, model_preset, context_window_tokens, max_iterations,
  /// current_iteration, last_usage, tool_names, max_tool_result_chars,
  /// sender_id. Never a secret.
  std::string turn_json = "{}";
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tool_request& x) {
  return f(caf::meta::type_name("tool_request"), x.session_key, x.call,
           x.channel, x.chat_id, x.suppress_delivery, x.outbox, x.mail,
           x.turn_json);
}

/// Appended to every error result so the model changes course.
inline constexpr const char* tool_error_hint =
  "\n\n[Analyze the error above and try a different approach.]";

/// What goes back to the model for one call.
struct tool_result {
  std::string call_id;
  std::string name;
  std::string content;
  bool is_error = false;
  int64_t started_us = 0;  ///< steady-clock time the work started
  int64_t finished_us = 0; ///< steady-clock time the work ended
  /// The message tool delivered to the turn's own channel and chat.
  bool delivered_to_origin = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tool_result& x) {
  return f(caf::meta::type_name("tool_result"), x.call_id, x.name, x.content,
           x.is_error, x.started_us, x.finished_us, x.delivered_to_origin);
}

/// Stop the named calls of a session (/stop): a running exec's process
/// group is killed, a queued one never starts. Empty `call_ids`: every
/// running call of the session.
struct cancel_tools {
  std::string session_key;
  std::vector<std::string> call_ids;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cancel_tools& x) {
  return f(caf::meta::type_name("cancel_tools"), x.session_key, x.call_ids);
}

} // namespace nb
