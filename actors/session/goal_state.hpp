// Sustained goals without actors or I/O: the goal state as the original
// stores it in a session file's metadata ("goal_state", read also from its
// older key "thread_goal", as an object or a JSON text), what create_goal
// and update_goal do to it (the original's checks, result texts and state
// shape, so a home stays readable by either program), and the texts that
// guide the model and continue a goal (goal_texts.cpp). session_goal.cpp
// does the I/O.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::goal {

inline constexpr const char* state_key = "goal_state";
inline constexpr const char* legacy_state_key = "thread_goal";
/// Continuation turns scheduled for the current goal (the original's key).
inline constexpr const char* rounds_key = "_sustained_goal_continuation_rounds";
/// At most this many continuation turns per goal (created or replaced).
inline constexpr int max_rounds = 12;
inline constexpr size_t max_objective_chars = 4000;

/// The stored goal (an object), or null when there is none or it is not
/// readable.
nlohmann::json parse_state(const nlohmann::json& metadata);

/// Whether the session has an active goal.
bool active(const nlohmann::json& metadata);

/// Continuation turns scheduled so far for the active goal.
int rounds(const nlohmann::json& metadata);

/// The lines the model sees about the active goal ("Goal (active):", the
/// objective, "Summary: ..."); empty without an active goal.
std::vector<std::string> runtime_lines(const nlohmann::json& metadata);

/// The WebUI's view of the goal (goal_state events and turn_end):
/// {active, status, ui_summary?, objective? (600 chars), recap? (240)} for
/// an active or blocked goal, else {"active": false}.
nlohmann::json ws_blob(const nlohmann::json& metadata);

/// What one create_goal or update_goal call does.
struct change {
  std::string text; ///< the tool result
  bool is_error = false;
  /// The JSON merge patch for the session file's metadata; null when the
  /// call changes nothing.
  nlohmann::json patch;
  /// The turn loses its /goal permission (the goal ended).
  bool revoke = false;
};

/// Runs a call of `tool` ("create_goal" or "update_goal") with its raw
/// arguments against `metadata`. `allowed`: the turn was started by /goal
/// (create, and replace, need it). `now`: the time to record.
change apply(const std::string& tool, const std::string& arguments_json,
             const nlohmann::json& metadata, bool allowed,
             const std::string& now);

/// The guidance added to the model's input while a goal is being started
/// (`start_requested`: this turn came from /goal) or is active; "" when
/// neither.
std::string guidance(bool start_requested, bool goal_active);

/// The text of an internal continuation turn for the goal in `metadata`.
std::string continuation_prompt(const nlohmann::json& metadata);

/// The user message that continues the active goal in `metadata` within
/// the turn, after a final answer (the original's runner appends it); ""
/// when no goal is active. goal_texts.cpp, with the texts above.
std::string in_turn_prompt(const nlohmann::json& metadata);

} // namespace nb::goal
