// The block level of Markdown as models write it: paragraphs, headings,
// lists, quotes, fenced code and rules, for outputs that lay text out
// themselves (the terminal). Inline styles are parse_markdown_inline's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nb {

enum class md_block_kind { paragraph, heading, list_item, quote, code, rule };

struct md_block {
  md_block_kind kind = md_block_kind::paragraph;
  /// heading: 1-6; list_item: nesting depth, 0 for the outermost list.
  int level = 0;
  /// list_item: "1." / "2)" for a numbered item, "" for a bullet.
  std::string number;
  /// paragraph, heading, list_item: the text, soft line breaks as '\n';
  /// code: the body as written (each line ending in '\n').
  std::string text;
  std::string lang;               ///< code: the fence's info word
  std::vector<md_block> children; ///< quote: what it quotes
};

/// Parses `md` line by line. Never throws; an unclosed fence runs to the
/// end (a reply still streaming).
std::vector<md_block> parse_markdown_blocks(std::string_view md);

} // namespace nb
