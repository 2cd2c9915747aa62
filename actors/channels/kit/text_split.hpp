// Cutting a long reply into platform-sized pieces at natural boundaries.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nb::chan {

/// Pieces of at most `limit` bytes, cut at a paragraph, line, sentence or
/// space when one is in the second half of the piece, never inside a UTF-8
/// character. An empty text gives no pieces.
std::vector<std::string> split_text(const std::string& text, size_t limit);

/// Whether `text` has "@name" as a whole word (case-insensitive).
bool mentions(const std::string& text, const std::string& name);

} // namespace nb::chan
