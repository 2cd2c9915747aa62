#include "actors/common/markdown_blocks.hpp"

#include <cctype>
#include <optional>

namespace nb {

namespace {

struct md_lines {
  std::vector<std::string_view> all;
  explicit md_lines(std::string_view md) {
    while (!md.empty()) {
      auto nl = md.find('\n');
      auto line = md.substr(0, nl);
      if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
      all.push_back(line);
      if (nl == std::string_view::npos)
        break;
      md.remove_prefix(nl + 1);
    }
  }
};

size_t md_indent(std::string_view line) {
  size_t n = 0;
  for (char c : line) {
    if (c == ' ')
      ++n;
    else if (c == '\t')
      n += 4 - n % 4;
    else
      break;
  }
  return n;
}

std::string_view md_strip(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

bool md_blank(std::string_view line) {
  return md_strip(line).empty();
}

/// "```" or "~~~" (three or more) opening a fence: the fence text.
std::optional<std::string> md_fence(std::string_view line) {
  auto s = md_strip(line);
  if (md_indent(line) > 3 || s.size() < 3 || (s[0] != '`' && s[0] != '~'))
    return std::nullopt;
  size_t n = 0;
  while (n < s.size() && s[n] == s[0])
    ++n;
  if (n < 3)
    return std::nullopt;
  return std::string(n, s[0]);
}

std::optional<md_block> md_heading(std::string_view line) {
  if (md_indent(line) > 3)
    return std::nullopt;
  auto s = md_strip(line);
  size_t n = 0;
  while (n < s.size() && s[n] == '#')
    ++n;
  if (n == 0 || n > 6 || (n < s.size() && s[n] != ' ' && s[n] != '\t'))
    return std::nullopt;
  auto text = md_strip(s.substr(n));
  // A closing run of '#' is not part of the title.
  auto end = text.find_last_not_of('#');
  if (end != std::string_view::npos && end + 1 < text.size()
      && (text[end] == ' ' || text[end] == '\t'))
    text = md_strip(text.substr(0, end + 1));
  else if (end == std::string_view::npos)
    text = {};
  md_block b;
  b.kind = md_block_kind::heading;
  b.level = static_cast<int>(n);
  b.text = std::string{text};
  return b;
}

bool md_rule(std::string_view line) {
  auto s = md_strip(line);
  if (md_indent(line) > 3 || s.empty()
      || (s[0] != '-' && s[0] != '*' && s[0] != '_'))
    return false;
  size_t marks = 0;
  for (char c : s) {
    if (c == s[0])
      ++marks;
    else if (c != ' ' && c != '\t')
      return false;
  }
  return marks >= 3;
}

struct md_item_start {
  size_t indent = 0;
  std::string number; // "" for a bullet
  std::string_view text;
};

std::optional<md_item_start> md_list_item(std::string_view line) {
  md_item_start it;
  it.indent = md_indent(line);
  auto s = md_strip(line);
  size_t n = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '*' || s[0] == '+')) {
    n = 1;
  } else {
    while (n < s.size() && n < 9
           && std::isdigit(static_cast<unsigned char>(s[n])))
      ++n;
    if (n == 0 || n >= s.size() || (s[n] != '.' && s[n] != ')'))
      return std::nullopt;
    ++n;
    it.number = std::string{s.substr(0, n)};
  }
  if (n < s.size() && s[n] != ' ' && s[n] != '\t')
    return std::nullopt;
  it.text = md_strip(s.substr(n));
  return it;
}

bool md_quote(std::string_view line) {
  return md_indent(line) <= 3 && !md_strip(line).empty()
         && md_strip(line)[0] == '>';
}

std::string_view md_unquote(std::string_view line) {
  auto s = md_strip(line);
  s.remove_prefix(1);
  if (!s.empty() && (s[0] == ' ' || s[0] == '\t'))
    s.remove_prefix(1);
  return s;
}

/// Whether `line` starts a block of its own (and so ends a paragraph).
bool md_starts_block(std::string_view line) {
  return md_blank(line) || md_fence(line) || md_heading(line) || md_rule(line)
         || md_quote(line) || md_list_item(line);
}

} // namespace

std::vector<md_block> parse_markdown_blocks(std::string_view md) {
  md_lines lines{md};
  std::vector<md_block> out;
  std::vector<size_t> list_indents; // the open lists' marker indents
  size_t i = 0;
  auto& all = lines.all;
  while (i < all.size()) {
    auto line = all[i];
    if (md_blank(line)) {
      ++i;
      continue;
    }
    if (auto fence = md_fence(line)) {
      md_block b;
      b.kind = md_block_kind::code;
      b.lang = std::string{md_strip(md_strip(line).substr(fence->size()))};
      for (++i; i < all.size(); ++i) {
        auto s = md_strip(all[i]);
        if (s.size() >= fence->size() && s.substr(0, fence->size()) == *fence
            && s.find_first_not_of(fence->front()) == std::string_view::npos) {
          ++i;
          break;
        }
        b.text += std::string{all[i]} + "\n";
      }
      out.push_back(std::move(b));
      list_indents.clear();
      continue;
    }
    if (auto h = md_heading(line)) {
      out.push_back(std::move(*h));
      list_indents.clear();
      ++i;
      continue;
    }
    if (md_rule(line)) {
      md_block b;
      b.kind = md_block_kind::rule;
      out.push_back(std::move(b));
      list_indents.clear();
      ++i;
      continue;
    }
    if (md_quote(line)) {
      std::string inner;
      for (; i < all.size() && md_quote(all[i]); ++i)
        inner += std::string{md_unquote(all[i])} + "\n";
      md_block b;
      b.kind = md_block_kind::quote;
      b.children = parse_markdown_blocks(inner);
      out.push_back(std::move(b));
      list_indents.clear();
      continue;
    }
    if (auto item = md_list_item(line)) {
      while (!list_indents.empty() && item->indent < list_indents.back())
        list_indents.pop_back();
      if (list_indents.empty() || item->indent > list_indents.back() + 1)
        list_indents.push_back(item->indent);
      md_block b;
      b.kind = md_block_kind::list_item;
      b.level = static_cast<int>(list_indents.size()) - 1;
      b.number = item->number;
      b.text = std::string{item->text};
      // Lines that start no block of their own continue the item.
      for (++i; i < all.size() && !md_starts_block(all[i]); ++i)
        b.text += "\n" + std::string{md_strip(all[i])};
      out.push_back(std::move(b));
      continue;
    }
    md_block b;
    b.text = std::string{md_strip(line)};
    for (++i; i < all.size() && !md_starts_block(all[i]); ++i)
      b.text += "\n" + std::string{md_strip(all[i])};
    out.push_back(std::move(b));
    list_indents.clear();
  }
  return out;
}

} // namespace nb
