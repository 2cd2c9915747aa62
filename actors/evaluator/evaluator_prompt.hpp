// The evaluator's system prompt: the built-in text, or the workspace's
// prompts/evaluator.md when that file is usable. Pure file reading, no actors.
#pragma once

#include <cstddef>
#include <string>

#include <caf/meta/type_name.hpp>

namespace nb {

/// Longest custom prompt kept, in characters (Unicode code points).
inline constexpr size_t evaluator_prompt_max_chars = 32000;

/// Appended to a custom prompt that was cut at the limit.
inline constexpr const char* prompt_truncation_marker = "\n... (truncated)";

/// The override's path relative to the workspace (shown to users).
inline constexpr const char* evaluator_prompt_rel_path = "prompts/evaluator.md";

/// The built-in system prompt (no trailing newline).
const std::string& default_evaluator_prompt();

/// The prompt to use and where it came from.
struct evaluator_prompt_choice {
  std::string text;
  bool custom = false;  ///< true: from prompts/evaluator.md
  std::string warning;  ///< non-empty: something the log should say
};

/// Sent from the thread that read the file to the evaluator.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        evaluator_prompt_choice& x) {
  return f(caf::meta::type_name("evaluator_prompt_choice"), x.text, x.custom,
           x.warning);
}

/// Reads `<workspace>/prompts/evaluator.md`. A missing, unreadable, empty
/// (whitespace only) or non-UTF-8 file gives the built-in prompt; a longer
/// one than evaluator_prompt_max_chars is cut there and marked. Never throws.
evaluator_prompt_choice resolve_evaluator_prompt(const std::string& workspace);

/// Returns whether `s` is well-formed UTF-8 without NUL bytes (a text file).
bool is_utf8_text(const std::string& s);

/// Cuts `s` (valid UTF-8) to `max_chars` code points plus the marker;
/// returns whether it cut anything.
bool truncate_chars(std::string& s, size_t max_chars);

} // namespace nb
