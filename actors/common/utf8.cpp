#include "actors/common/utf8.hpp"

#include <cstdint>

namespace nb {

namespace {

bool is_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

} // namespace

size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80)
    return 1;
  size_t n = 0;
  uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size())
    return 0;
  for (size_t k = 1; k < n; ++k) {
    auto d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are invalid.
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF
      || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

std::optional<size_t> first_invalid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // ASCII runs are the common case; skip them without the full check.
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    auto n = utf8_sequence_length(s, i);
    if (n == 0)
      return i;
    i += n;
  }
  return std::nullopt;
}

std::string_view utf8_head(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes)
    return s;
  auto end = max_bytes;
  while (end > 0 && is_continuation(s[end]))
    --end;
  return s.substr(0, end);
}

std::string_view utf8_tail(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes)
    return s;
  auto start = s.size() - max_bytes;
  while (start < s.size() && is_continuation(s[start]))
    ++start;
  return s.substr(start);
}

} // namespace nb
