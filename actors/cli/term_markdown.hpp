// A model's Markdown reply laid out for the terminal in ANSI styles, close to
// what the original's Rich console shows: bold/italic/struck text, headings
// (a heavy box around a level-1 title), bullets and numbers with nesting,
// quotes behind a bar, fenced code in a rounded box with its language,
// inline code, links with their URL; wrapped to the terminal's width.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "actors/common/markdown_blocks.hpp"

namespace nb::term {

/// All of `md`, each line ending in '\n'.
std::string render_markdown(std::string_view md, size_t width);

/// One block; `prev` (the block before it, or null) decides whether a blank
/// line separates them (list items follow each other without one).
std::string render_block(const md_block& b, const md_block* prev, size_t width);

/// A streamed reply rendered block by block: a block is shown once the next
/// one has started on a complete line (nothing later can change it), the
/// rest at finish(). What is shown never has to be taken back.
class markdown_stream {
public:
  explicit markdown_stream(size_t width) : width_(width) {}
  /// Adds a delta; returns what is now ready to print ("" when nothing).
  std::string feed(std::string_view delta);
  /// The blocks not shown yet.
  std::string finish();
  /// Whether anything was shown or is pending.
  bool empty() const { return text_.empty(); }

private:
  std::string text_;
  size_t shown_ = 0; ///< blocks already returned
  size_t width_;
};

} // namespace nb::term
