#include "actors/channels/manager/split.hpp"

namespace nb {

namespace {

bool continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

/// Byte offset just past `count` code points from `from` (or the end).
size_t advance(const std::string& s, size_t from, size_t count) {
  size_t i = from;
  while (i < s.size() && count > 0) {
    ++i;
    while (i < s.size() && continuation(s[i]))
      ++i;
    --count;
  }
  return i;
}

/// The best cut in [from, end): after the last "\n\n", "\n" or " " that
/// lies in the second half; else `end` itself.
size_t best_cut(const std::string& s, size_t from, size_t end) {
  size_t half = from + (end - from) / 2;
  for (const char* sep : {"\n\n", "\n", " "}) {
    auto at = s.rfind(sep, end - 1);
    if (at != std::string::npos && at > half && at < end)
      return at;
  }
  return end;
}

size_t skip_separator(const std::string& s, size_t at) {
  while (at < s.size() && (s[at] == '\n' || s[at] == ' '))
    ++at;
  return at;
}

} // namespace

std::vector<std::string> split_message(const std::string& text,
                                       size_t max_chars) {
  std::vector<std::string> out;
  if (max_chars == 0) {
    out.push_back(text);
    return out;
  }
  size_t from = 0;
  while (true) {
    size_t end = advance(text, from, max_chars);
    if (end >= text.size()) {
      out.push_back(text.substr(from));
      return out;
    }
    size_t cut = best_cut(text, from, end);
    out.push_back(text.substr(from, cut - from));
    from = cut == end ? end : skip_separator(text, cut);
    if (from >= text.size())
      return out;
  }
}

} // namespace nb
