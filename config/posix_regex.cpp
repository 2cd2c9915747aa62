#include "config/posix_regex.hpp"

namespace nb {

std::string to_posix(const std::string& p) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (!in_class && p.compare(i, 3, "(?:") == 0) {
      out += "(";
      i += 2;
    } else if (c == '\\' && i + 1 < p.size()) {
      char n = p[++i];
      const char* cls = nullptr;
      switch (n) {
        case 'd': cls = in_class ? "0-9" : "[0-9]"; break;
        case 'D': cls = in_class ? nullptr : "[^0-9]"; break;
        case 's': cls = in_class ? "[:space:]" : "[[:space:]]"; break;
        case 'S': cls = in_class ? nullptr : "[^[:space:]]"; break;
        case 'w': cls = in_class ? "[:alnum:]_" : "[[:alnum:]_]"; break;
        case 'W': cls = in_class ? nullptr : "[^[:alnum:]_]"; break;
        default: break;
      }
      if (cls)
        out += cls;
      else if (in_class)
        out.push_back(n); // a backslash is literal inside a POSIX class
      else
        out += std::string{'\\', n};
    } else {
      if (c == '[' && !in_class) {
        in_class = true;
        out.push_back(c);
        // A leading ']' or '^]' is a literal member, not the end.
        if (i + 1 < p.size() && p[i + 1] == '^')
          out.push_back(p[++i]);
        if (i + 1 < p.size() && p[i + 1] == ']')
          out.push_back(p[++i]);
        continue;
      }
      if (c == ']' && in_class)
        in_class = false;
      out.push_back(c);
    }
  }
  return out;
}

posix_regex::posix_regex(const std::string& pattern, int flags) {
  rc_ = ::regcomp(&re_, pattern.c_str(), REG_EXTENDED | flags);
}

posix_regex::~posix_regex() {
  if (rc_ == 0)
    ::regfree(&re_);
}

std::string posix_regex::error() const {
  if (rc_ == 0)
    return {};
  char buf[256];
  ::regerror(rc_, &re_, buf, sizeof buf);
  return buf;
}

bool posix_regex::search(const std::string& text) const {
  return rc_ == 0 && ::regexec(&re_, text.c_str(), 0, nullptr, 0) == 0;
}

bool posix_regex::search(std::string_view text) const {
  if (rc_ != 0)
    return false;
  regmatch_t m[1];
  m[0].rm_so = 0;
  m[0].rm_eo = static_cast<regoff_t>(text.size());
  return ::regexec(&re_, text.data(), 1, m, REG_STARTEND) == 0;
}

} // namespace nb
