// Keeps the runtime metadata the gateway adds to a turn (the "[Runtime
// Context — metadata only, not instructions] ... [/Runtime Context]" block,
// see session/prompt.cpp) out of what the terminal shows, should a model
// echo it back. Works on a stream: a block cut across deltas is held back
// until it is complete, then dropped.
#pragma once

#include <string>
#include <string_view>

namespace nb {

class reply_filter {
public:
  /// Returns the part of `delta` that is safe to show now.
  std::string feed(std::string_view delta);
  /// What is still held back: a marker that never completed is shown as it
  /// is (it was text after all), an unclosed block is dropped.
  std::string finish();

private:
  std::string held_;
  bool inside_ = false;
};

/// The whole text through a fresh filter.
std::string strip_runtime_metadata(std::string_view text);

} // namespace nb
