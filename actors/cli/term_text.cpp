#include "actors/cli/term_text.hpp"

#include <cstdlib>

#include <sys/ioctl.h>
#include <unistd.h>

#include "actors/common/utf8.hpp"

namespace nb::term {

namespace {

char32_t term_decode(std::string_view s, size_t i, size_t len) {
  auto b = static_cast<unsigned char>(s[i]);
  if (len == 1)
    return b;
  char32_t cp = b & (0x7F >> len);
  for (size_t k = 1; k < len; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return cp;
}

size_t term_columns(char32_t cp) {
  if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F)
      || (cp >= 0xFE00 && cp <= 0xFE0F))
    return 0;
  if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF)
      || (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF)
      || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60)
      || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F)
      || (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
    return 2;
  return 1;
}

/// The length of the character at s[i] (a broken byte counts as one).
size_t term_char_len(std::string_view s, size_t i) {
  auto n = utf8_sequence_length(s, i);
  return n == 0 ? 1 : n;
}

size_t term_char_width(std::string_view s, size_t i, size_t len) {
  return len == 1 && static_cast<unsigned char>(s[i]) >= 0x80
           ? 1
           : term_columns(term_decode(s, i, len));
}

bool term_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// Appends to `l`, joining runs of one style.
void term_append(line& l, std::string_view text, const style& st) {
  if (text.empty())
    return;
  if (!l.empty() && l.back().st == st)
    l.back().text += text;
  else
    l.push_back(run{std::string{text}, st});
}

} // namespace

style style::with(const style& over) const {
  style s = *this;
  s.bold = s.bold || over.bold;
  s.dim = s.dim || over.dim;
  s.italic = s.italic || over.italic;
  s.underline = s.underline || over.underline;
  s.strike = s.strike || over.strike;
  if (over.fg != 0)
    s.fg = over.fg;
  return s;
}

std::string sgr(const style& s) {
  std::string codes;
  auto add = [&](int code) {
    if (!codes.empty())
      codes += ';';
    codes += std::to_string(code);
  };
  if (s.bold)
    add(1);
  if (s.dim)
    add(2);
  if (s.italic)
    add(3);
  if (s.underline)
    add(4);
  if (s.strike)
    add(9);
  if (s.fg != 0)
    add(s.fg);
  return codes.empty() ? std::string{} : "\033[" + codes + "m";
}

size_t display_width(std::string_view s) {
  size_t w = 0;
  for (size_t i = 0; i < s.size();) {
    auto len = term_char_len(s, i);
    w += term_char_width(s, i, len);
    i += len;
  }
  return w;
}

std::vector<std::string> cut(std::string_view s, size_t width) {
  std::vector<std::string> out{std::string{}};
  size_t w = 0;
  for (size_t i = 0; i < s.size();) {
    auto len = term_char_len(s, i);
    auto cw = term_char_width(s, i, len);
    if (w + cw > width && w > 0) {
      out.emplace_back();
      w = 0;
    }
    out.back() += s.substr(i, len);
    w += cw;
    i += len;
  }
  return out;
}

std::vector<line> wrap(const std::vector<run>& runs, size_t width) {
  if (width == 0)
    width = 1;
  // Words as styled pieces; `space` is the style of the gap before one.
  struct word {
    line pieces;
    size_t w = 0;
    style space;
  };
  std::vector<word> words;
  bool gap = true;
  style gap_style;
  for (const auto& r : runs) {
    std::string_view t = r.text;
    for (size_t i = 0; i < t.size();) {
      if (term_space(t[i])) {
        if (!gap)
          gap_style = r.st;
        gap = true;
        ++i;
        continue;
      }
      if (gap) {
        words.push_back(word{{}, 0, gap_style});
        gap = false;
      }
      auto len = term_char_len(t, i);
      term_append(words.back().pieces, t.substr(i, len), r.st);
      words.back().w += term_char_width(t, i, len);
      i += len;
    }
  }
  std::vector<line> out;
  line cur;
  size_t w = 0;
  auto newline = [&] {
    out.push_back(std::move(cur));
    cur.clear();
    w = 0;
  };
  for (auto& wd : words) {
    if (w > 0 && w + 1 + wd.w <= width) {
      term_append(cur, " ", wd.space);
      ++w;
    } else if (w > 0) {
      newline();
    }
    if (wd.w <= width - w) {
      for (auto& p : wd.pieces)
        term_append(cur, p.text, p.st);
      w += wd.w;
      continue;
    }
    // Wider than a line: cut it, piece by piece.
    for (auto& p : wd.pieces) {
      std::string_view t = p.text;
      for (size_t i = 0; i < t.size();) {
        auto len = term_char_len(t, i);
        auto cw = term_char_width(t, i, len);
        if (w + cw > width && w > 0)
          newline();
        term_append(cur, t.substr(i, len), p.st);
        w += cw;
        i += len;
      }
    }
  }
  if (!cur.empty() || out.empty())
    out.push_back(std::move(cur));
  return out;
}

std::string emit(const line& l) {
  std::string out;
  for (const auto& r : l) {
    auto code = sgr(r.st);
    out += code + r.text;
    if (!code.empty())
      out += "\033[0m";
  }
  return out;
}

size_t terminal_width(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  if (const char* cols = std::getenv("COLUMNS")) {
    char* end = nullptr;
    long n = std::strtol(cols, &end, 10);
    if (end != cols && *end == '\0' && n > 0 && n < 10000)
      return static_cast<size_t>(n);
  }
  return 80;
}

} // namespace nb::term
