#include "actors/tools/text.hpp"

#include <algorithm>
#include <cstdint>

#include "actors/common/utf8.hpp"

namespace nb {

namespace {

bool is_cont(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

} // namespace

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (auto n = utf8_sequence_length(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");
      ++i;
    }
  }
  return out;
}

size_t utf8_length(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return !is_cont(static_cast<unsigned char>(c));
  }));
}

bool looks_binary(std::string_view data) {
  auto sample = data.substr(0, 8192);
  if (sample.find('\0') != std::string_view::npos)
    return true;
  size_t control = 0;
  for (char ch : sample) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f'
        && c != '\b' && c != 0x1B)
      ++control;
  }
  return !sample.empty() && control * 10 > sample.size();
}

std::string sniff_mime(std::string_view d) {
  auto starts = [&](std::string_view m) { return d.substr(0, m.size()) == m; };
  if (starts("\x89PNG\r\n\x1A\n"))
    return "image/png";
  if (starts("\xFF\xD8\xFF"))
    return "image/jpeg";
  if (starts("GIF87a") || starts("GIF89a"))
    return "image/gif";
  if (starts("RIFF") && d.size() >= 12 && d.substr(8, 4) == "WEBP")
    return "image/webp";
  if (starts("%PDF-"))
    return "application/pdf";
  if (starts("PK\x03\x04"))
    return "application/zip";
  if (starts("\x7F" "ELF"))
    return "application/x-elf";
  if (starts("\x1F\x8B"))
    return "application/gzip";
  return {};
}

std::string crlf_to_lf(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n')
      continue;
    out.push_back(s[i]);
  }
  return out;
}

std::string preview(std::string_view s, size_t max_chars) {
  auto head = utf8_head(s, max_chars);
  std::string out;
  for (char c : head) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else
      out.push_back(c);
  }
  out = sanitize_utf8(out);
  if (head.size() < s.size())
    out += "...";
  return out;
}

} // namespace nb
