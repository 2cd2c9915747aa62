// Fixed texts the runner shows the model or the user, in our own words.
#pragma once

#include <string>

namespace nb::texts {

/// Asked of the model when the tool budget of a turn is spent.
inline constexpr const char* finalize_after_budget
  = "You have used every tool call this turn allows. Do not call any more "
    "tools. Using only the conversation and the tool results above, reply to "
    "the user: say what was done, what is still open, and the most useful "
    "next step. Do not claim the task is finished unless the results above "
    "show that it is.";

/// Asked of the model when it answered with nothing at all.
inline constexpr const char* finalize_after_empty
  = "Your last reply was empty. Please answer the user now, based on the "
    "conversation above.";

/// Told to the model when every tool call of its reply lacked a name.
inline constexpr const char* malformed_calls_note
  = "Your previous reply contained tool calls without a valid tool name, so "
    "none of them ran. Call tools by their exact names with JSON object "
    "arguments, or answer without tools.";

/// Returned when even the finalisation request produced no answer.
std::string budget_exhausted(int max_iterations);

/// Returned when the model produced no text after every retry.
inline constexpr const char* empty_final
  = "I finished the tool steps but could not put together a final answer. "
    "Please try again, or narrow the task down.";

/// Stands in the transcript for a reply the model failed to give, so the
/// conversation keeps alternating between user and assistant.
inline constexpr const char* reply_unavailable
  = "[Assistant reply unavailable due to model error.]";

/// The result of a tool call the user stopped (/stop) before it finished.
inline constexpr const char* tool_interrupted
  = "Error: Task interrupted before this tool finished.";

} // namespace nb::texts
