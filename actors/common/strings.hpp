// Small string helpers shared by every actor library: ASCII case folding,
// trimming of surrounding white space, percent-encoding.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace nb {

/// `s` without leading and trailing spaces, tabs, CR and LF.
inline std::string trim_space(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos)
    return {};
  return std::string{s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1)};
}

/// `s` without leading and trailing white space (isspace), as a view.
inline std::string_view trim_view(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

/// `s` with A-Z turned into a-z (other bytes, UTF-8 included, unchanged).
inline std::string ascii_lower(std::string_view s) {
  std::string out{s};
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// `s` with every run of white space (space, tab, CR, LF, ...) folded to one
/// space and none at either end.
inline std::string fold_space(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space)
      out += ' ';
    space = false;
    out += c;
  }
  return out;
}

/// Percent-encodes a URL path segment or query value (RFC 3986: only
/// letters, digits and "-_.~" stay as they are).
inline std::string url_encode(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

} // namespace nb
