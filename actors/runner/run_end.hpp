// How a run ended, as values: the runner decides it, the session and the
// subagents act on it. On the wire (turn_outcome.stop_reason) and in the
// reply's metadata it travels as its word ("completed", ...), converted
// here and nowhere else.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace nb {

/// How a run ended.
enum class turn_stop : uint8_t {
  none,           ///< no run ended (a command answered the message)
  completed,      ///< the model gave its final answer
  max_iterations, ///< the iteration budget ran out; a final answer was asked
  /// the model answered nothing twice; a final answer was asked
  empty_final_response,
  tool_error, ///< a tool failed and the run stops on tool errors
  error,      ///< the model could not be reached or answered an error
  cancelled,  ///< /stop or /new ended it
};

/// Its word: "completed", "max_iterations", "empty_final_response",
/// "tool_error", "error", "cancelled"; "" for none.
std::string to_string(turn_stop x);

/// The stop a word names (an unknown word or "": none).
turn_stop turn_stop_from(std::string_view word);

/// How the model's final answer ended, as far as the session cares: the
/// runner marks a refusal on the final message ("_finish_reason", with the
/// provider's word), which the session reads and drops before it stores
/// the message; a sustained goal never goes on from a refusal.
enum class answer_finish : uint8_t {
  normal,         ///< no mark
  refusal,        ///< "refusal"
  content_filter, ///< "content_filter"
};

/// The mark's word as the answer's finish ("" or any other word: normal).
answer_finish answer_finish_from(std::string_view mark);

} // namespace nb
