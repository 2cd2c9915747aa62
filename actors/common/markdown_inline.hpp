// The inline level of Markdown as models write it, parsed once into styled
// runs that each output renders its own way: the chat channels' HTML
// (channels/kit/markdown_html) and the terminal's ANSI (cli/term_markdown).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nb {

/// One run of text with the styles that apply to all of it.
struct md_span {
  std::string text;
  bool bold = false;   ///< **x** or __x__
  bool italic = false; ///< *x* or _x_ at word edges (snake_case stays)
  bool strike = false; ///< ~~x~~
  bool code = false;   ///< `x`: taken as written, no other rule inside
  std::string url;     ///< [text](url): a link; `text` is what it shows
};

/// Splits `text` (one line or a paragraph; no fenced code) into runs.
/// Control bytes 0x01-0x07 are dropped (they mark parts while parsing).
/// Adjacent text runs differ in style (each code span and link is a run
/// of its own); a run never has empty text.
std::vector<md_span> parse_markdown_inline(std::string_view text);

} // namespace nb
