#include "actors/runner/turn_texts.hpp"

namespace nb::texts {

std::string budget_exhausted(int max_iterations) {
  return "I used all " + std::to_string(max_iterations)
         + " tool steps this turn allows without finishing the task. Try "
           "splitting it into smaller steps, or ask me to continue.";
}

} // namespace nb::texts
