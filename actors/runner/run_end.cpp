#include "actors/runner/run_end.hpp"

namespace nb {

std::string to_string(turn_stop x) {
  switch (x) {
    case turn_stop::none: return "";
    case turn_stop::completed: return "completed";
    case turn_stop::max_iterations: return "max_iterations";
    case turn_stop::empty_final_response: return "empty_final_response";
    case turn_stop::tool_error: return "tool_error";
    case turn_stop::error: return "error";
    case turn_stop::cancelled: return "cancelled";
  }
  return "";
}

turn_stop turn_stop_from(std::string_view word) {
  for (auto x : {turn_stop::completed, turn_stop::max_iterations,
                 turn_stop::empty_final_response, turn_stop::tool_error,
                 turn_stop::error, turn_stop::cancelled})
    if (word == to_string(x))
      return x;
  return turn_stop::none;
}

answer_finish answer_finish_from(std::string_view mark) {
  if (mark == "refusal")
    return answer_finish::refusal;
  if (mark == "content_filter")
    return answer_finish::content_filter;
  return answer_finish::normal;
}

} // namespace nb
