// Internals of the context governor shared by its pipeline
// (context_governor.cpp) and its outputs (governor_output.cpp): the view of
// one message on its way through the steps. Internal to nb_runner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/runner/context_governor.hpp"

namespace nb::governor {

/// A message's role (none: without one, the message is dropped).
using kind = message_role;

/// One message: a view of the caller's element until a step changes it
/// (then a private copy), so untouched messages are never copied.
struct entry {
  const nlohmann::json* orig = nullptr;
  nlohmann::json own;
  bool owned = false;
  /// `orig` is a stored transcript line: its copy takes the model fields
  /// only (model_fields_of), never its bookkeeping.
  bool line = false;
  kind k = kind::other;
  int64_t tokens = 0;
  size_t index = static_cast<size_t>(-1); ///< in the input; -1: synthetic
  /// Read once, so the repair passes look nothing up again: a tool
  /// result's tool_call_id, and an assistant message's usable calls as a
  /// range of the pass's call table. Views into the caller's input.
  std::string_view call_id;
  uint32_t calls_from = 0;
  uint32_t calls_to = 0;

  const nlohmann::json& get() const { return owned ? own : *orig; }
  nlohmann::json& make_owned() {
    if (!owned) {
      own = line ? model_fields_of(*orig) : *orig;
      owned = true;
    }
    return own;
  }
};

using entries = std::vector<entry>;

/// The token estimate of one message (see estimate_tokens()).
int64_t message_tokens(const nlohmann::json& m);

/// One input message, and its token estimate when the caller has it
/// (a model_message's; -1: counted here); `line`: it is a stored
/// transcript line, read for its model fields (model_message::fields()).
struct input {
  const nlohmann::json* message = nullptr;
  int64_t tokens = -1;
  bool line = false;
  /// The role when the caller read it already (a model_message's).
  std::optional<kind> role;
};

/// Steps 1-8 over `messages`.
entries govern_entries(const std::vector<input>& messages,
                       const governor_limits& limits);

} // namespace nb::governor
