// How one answer appears in the terminal: rendered Markdown (on a terminal,
// unless --no-markdown) or the text exactly as written; runtime metadata
// never. Streamed answers are rendered block by block as they complete.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>

#include "actors/cli/reply_filter.hpp"
#include "actors/cli/term_markdown.hpp"

namespace nb {

class reply_view {
public:
  /// `markdown`: render (else plain text); `width`: the columns to fill.
  reply_view(std::ostream& out, bool markdown, size_t width);

  void delta(std::string_view text);
  /// A streamed segment ended (tool calls may follow, then another).
  void stream_end();
  /// The turn's final text; `streamed` when the deltas already showed it.
  void final_text(const std::string& text, bool streamed);

private:
  void flush_stream();

  std::ostream& out_;
  bool markdown_;
  size_t width_;
  reply_filter filter_;
  term::markdown_stream stream_;
  bool streamed_any_ = false;
};

} // namespace nb
