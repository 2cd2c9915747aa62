// Splitting a long reply into pieces a platform accepts.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nb {

/// Cuts `text` into pieces of at most `max_chars` characters (Unicode code
/// points; never inside a UTF-8 sequence), preferring a paragraph break,
/// then a line break, then a space in the second half of each piece. Pieces
/// keep every character except the whitespace they were cut at.
/// `max_chars` 0 = no limit (one piece). Empty text gives one empty piece.
std::vector<std::string> split_message(const std::string& text,
                                       size_t max_chars);

} // namespace nb
