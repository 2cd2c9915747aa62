#include "actors/tools/untrusted.hpp"

#include <cstdint>
#include <random>

namespace nb {

namespace {

// Decodes one UTF-8 sequence at s[i]; returns its length (1 for bad bytes).
size_t decode(std::string_view s, size_t i, uint32_t& cp) {
  auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3
                          : (c >> 3) == 30 ? 4 : 1;
  if (n == 1 || i + n > s.size()) {
    cp = c;
    return 1;
  }
  cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return n;
}

bool invisible(uint32_t cp) {
  return (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E)
         || (cp >= 0x2060 && cp <= 0x2064) || cp == 0xFEFF || cp == 0x00AD
         || cp == 0x180E || (cp >= 0xE0000 && cp <= 0xE007F);
}

// Look-alikes of '<' and '>' (full-width, angle quotes, math brackets).
char fold_angle(uint32_t cp) {
  switch (cp) {
    case 0xFF1C: case 0x2039: case 0x27E8: case 0x2329: case 0x3008:
    case 0xFE64: case 0x276E: case 0x00AB: case 0x226A:
      return '<';
    case 0xFF1E: case 0x203A: case 0x27E9: case 0x232A: case 0x3009:
    case 0xFE65: case 0x276F: case 0x00BB: case 0x226B:
      return '>';
    default:
      return 0;
  }
}

std::string random_id() {
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  static const char* hex = "0123456789abcdef";
  std::string s;
  auto v = gen();
  for (int i = 0; i < 16; ++i, v >>= 4)
    s.push_back(hex[v & 0xF]);
  return s;
}

void erase_all(std::string& s, std::string_view what) {
  for (size_t at; (at = s.find(what)) != std::string::npos;)
    s.erase(at, what.size());
}

} // namespace

std::string neutralize_markers(std::string_view content) {
  std::string folded;
  folded.reserve(content.size());
  for (size_t i = 0; i < content.size();) {
    uint32_t cp;
    auto n = decode(content, i, cp);
    if (n > 1 && invisible(cp)) {
      i += n;
      continue;
    }
    if (auto a = n > 1 ? fold_angle(cp) : 0) {
      folded.push_back(a);
      i += n;
      continue;
    }
    folded.append(content.substr(i, n));
    i += n;
  }
  // Chat-template control tokens: "<|anything|>" (im_start, header ids,
  // reserved tokens), Llama [INST] tags, <s>/</s>.
  std::string out;
  out.reserve(folded.size());
  for (size_t i = 0; i < folded.size(); ++i) {
    if (folded.compare(i, 2, "<|") == 0) {
      auto end = folded.find("|>", i + 2);
      if (end != std::string::npos && end - i < 64) {
        i = end + 1;
        continue;
      }
    }
    out.push_back(folded[i]);
  }
  for (auto tok : {"[INST]", "[/INST]", "<<SYS>>", "<</SYS>>", "<s>", "</s>"})
    erase_all(out, tok);
  // No run of three angle brackets survives, so no frame marker can.
  std::string safe;
  safe.reserve(out.size());
  for (char c : out) {
    size_t n = safe.size();
    if ((c == '<' || c == '>') && n >= 2 && safe[n - 1] == c
        && safe[n - 2] == c)
      safe.push_back(' ');
    safe.push_back(c);
  }
  return safe;
}

std::string frame_untrusted(std::string_view source, std::string_view content) {
  auto id = random_id();
  std::string src{source};
  return std::string{untrusted_banner} + "\n<<<UNTRUSTED_CONTENT source=\""
         + neutralize_markers(src) + "\" id=" + id + ">>>\n"
         + neutralize_markers(content) + "\n<<<END_UNTRUSTED_CONTENT id=" + id
         + ">>>";
}

} // namespace nb
