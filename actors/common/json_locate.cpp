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

std::vector<std::string_view> json_array_elements(std::string_view text) {
  std::vector<std::string_view> out;
  auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  };
  size_t i = 0;
  while (i < text.size() && is_space(text[i]))
    ++i;
  if (i == text.size() || text[i] != '[')
    return out;
  int depth = 0; // inside the array's elements
  bool in_string = false;
  size_t start = std::string_view::npos;
  auto close_element = [&](size_t end) {
    while (end > start && is_space(text[end - 1]))
      --end;
    if (start != std::string_view::npos && end > start)
      out.push_back(text.substr(start, end - start));
    start = std::string_view::npos;
  };
  for (++i; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i; // the escaped character, whatever it is
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (is_space(c))
      continue;
    if (start == std::string_view::npos && c != ','
        && !(depth == 0 && c == ']'))
      start = i;
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (depth == 0) { // the array's own end
        close_element(i);
        break;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      close_element(i);
    }
  }
  return out;
}

} // namespace nb
