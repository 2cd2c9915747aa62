#include "actors/channels/kit/text_split.hpp"

#include <cctype>

namespace nb::chan {

namespace {

bool continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

size_t cut_point(const std::string& s, size_t from, size_t limit) {
  size_t end = from + limit;
  for (const char* sep : {"\n\n", "\n", ". ", " "}) {
    std::string sp{sep};
    auto p = s.rfind(sp, end - sp.size());
    if (p != std::string::npos && p > from + limit / 2)
      return p + sp.size();
  }
  while (end > from + 1 && continuation(s[end]))
    --end;
  return end;
}

} // namespace

std::vector<std::string> split_text(const std::string& text, size_t limit) {
  std::vector<std::string> out;
  if (limit == 0)
    return {text};
  size_t pos = 0;
  while (pos < text.size()) {
    if (text.size() - pos <= limit) {
      out.push_back(text.substr(pos));
      break;
    }
    auto cut = cut_point(text, pos, limit);
    out.push_back(text.substr(pos, cut - pos));
    pos = cut;
  }
  return out;
}

bool mentions(const std::string& text, const std::string& name) {
  if (name.empty())
    return false;
  auto lower = [](std::string s) {
    for (auto& c : s)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  auto t = lower(text);
  auto n = "@" + lower(name);
  for (auto p = t.find(n); p != std::string::npos; p = t.find(n, p + 1)) {
    auto after = p + n.size();
    if (after == t.size()
        || !(std::isalnum(static_cast<unsigned char>(t[after]))
             || t[after] == '_'))
      return true;
  }
  return false;
}

} // namespace nb::chan
