#include "actors/common/json_locate.hpp"

#include <algorithm>
#include <vector>

namespace nb {

namespace {

struct frame {
  bool object = false;
  bool expecting_key = false; ///< objects: the next string is a key
  std::string key;            ///< objects: the current member's key
  size_t index = 0;           ///< arrays: the current element
};

std::string path_of(const std::vector<frame>& stack) {
  std::string out;
  for (const auto& f : stack) {
    if (f.object) {
      if (f.expecting_key)
        break; // between members: the path ends at the object itself
      if (!out.empty())
        out += '.';
      out += f.key;
    } else {
      out += '[' + std::to_string(f.index) + ']';
    }
  }
  return out;
}

/// Index of the quote that closes the string opening at `open`, or size()
/// when it is never closed.
size_t closing_quote(std::string_view s, size_t open) {
  size_t i = open + 1;
  while (i < s.size() && s[i] != '"')
    i += s[i] == '\\' ? 2 : 1;
  return std::min(i, s.size());
}

} // namespace

std::string json_path_at(std::string_view s, size_t offset) {
  std::vector<frame> stack;
  auto named = [](std::string p) {
    return p.empty() ? std::string{"the document"} : p;
  };
  size_t i = 0;
  while (i < s.size() && i <= offset) {
    char c = s[i];
    switch (c) {
      case '{':
        stack.push_back({true, true, {}, 0});
        ++i;
        continue;
      case '[':
        stack.push_back({});
        ++i;
        continue;
      case '}':
      case ']':
        if (!stack.empty())
          stack.pop_back();
        ++i;
        continue;
      case ',':
        if (!stack.empty()) {
          if (stack.back().object)
            stack.back().expecting_key = true;
          else
            ++stack.back().index;
        }
        ++i;
        continue;
      case ':':
        if (!stack.empty() && stack.back().object)
          stack.back().expecting_key = false;
        ++i;
        continue;
      case '"': {
        auto close = closing_quote(s, i);
        auto end = close + 1;
        bool is_key = !stack.empty() && stack.back().object
                      && stack.back().expecting_key;
        if (offset < end) {
          if (is_key) {
            auto parent = path_of(stack);
            return parent.empty() ? "a key of the document"
                                  : "a key in " + parent;
          }
          return named(path_of(stack));
        }
        if (is_key) {
          auto len = std::min<size_t>(close - i - 1, 64);
          stack.back().key = std::string{s.substr(i + 1, len)};
        }
        i = end;
        continue;
      }
      default:
        ++i; // whitespace and scalar characters
    }
  }
  return named(path_of(stack));
}

} // namespace nb
