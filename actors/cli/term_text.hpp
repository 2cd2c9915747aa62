// Styled text for the terminal: SGR styles, display width and word wrap.
// The Markdown renderer (term_markdown) lays out with these.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nb::term {

/// SGR attributes; `fg` is an SGR colour code (30-37, 90-97) or 0.
struct style {
  bool bold = false;
  bool dim = false;
  bool italic = false;
  bool underline = false;
  bool strike = false;
  int fg = 0;
  bool operator==(const style&) const = default;
  /// Both styles at once (`over`'s colour wins when it has one).
  style with(const style& over) const;
};

/// "\033[1;3m" for bold italic, "" for the plain style.
std::string sgr(const style& s);

struct run {
  std::string text;
  style st;
};
using line = std::vector<run>;

/// Columns `s` (UTF-8) takes on a terminal: East Asian wide characters and
/// emoji take two, combining marks none.
size_t display_width(std::string_view s);

/// Lays `runs` out in lines of at most `width` columns, breaking at spaces
/// (a run of white space, line breaks included, is one space); a word wider
/// than a line is cut.
std::vector<line> wrap(const std::vector<run>& runs, size_t width);

/// Cuts `s` into pieces of at most `width` columns (code keeps its spaces).
std::vector<std::string> cut(std::string_view s, size_t width);

/// The line as text: each styled run in its SGR code and a reset.
std::string emit(const line& l);

/// The width to lay out for: the terminal's (TIOCGWINSZ on `fd`), else
/// $COLUMNS, else 80.
size_t terminal_width(int fd);

} // namespace nb::term
