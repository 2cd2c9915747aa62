// /evaluator-prompt [init]: which gate prompt is in use, and writing an
// editable copy of the built-in one. Small file I/O, no actors.
#pragma once

#include <string>

namespace nb {

/// The command's answer for `args` ("" or "init") in `workspace`.
std::string evaluator_prompt_command(const std::string& workspace,
                                     const std::string& args);

} // namespace nb
