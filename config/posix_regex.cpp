#include "config/posix_regex.hpp"

#include <algorithm>
#include <optional>
#include <vector>

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

namespace {

/// Saturating arithmetic for the size estimate.
size_t capped(double x) {
  return x > 1e12 ? static_cast<size_t>(1e12) : static_cast<size_t>(x);
}

/// Reads "{n}", "{n,}" or "{n,m}" at `i` (on '{'); the largest count, or
/// nullopt when it is not a bound (then '{' is a literal).
std::optional<size_t> bound_at(std::string_view s, size_t& i) {
  size_t j = i + 1;
  size_t n = 0, m = 0;
  bool digits = false;
  while (j < s.size() && s[j] >= '0' && s[j] <= '9') {
    n = std::min<size_t>(n * 10 + static_cast<size_t>(s[j] - '0'), 1000000);
    ++j;
    digits = true;
  }
  if (!digits)
    return std::nullopt;
  if (j < s.size() && s[j] == ',') {
    ++j;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') {
      m = std::min<size_t>(m * 10 + static_cast<size_t>(s[j] - '0'), 1000000);
      ++j;
    }
  }
  if (j >= s.size() || s[j] != '}')
    return std::nullopt;
  i = j;
  return std::max(n, m);
}

} // namespace

size_t expanded_size(std::string_view s) {
  // One frame per open group: the size of what it holds so far, and of
  // its last unit (what a following repetition applies to).
  struct frame {
    size_t total = 0;
    size_t last = 0;
  };
  std::vector<frame> stack(1);
  auto unit = [&](size_t w) {
    stack.back().total = capped(double(stack.back().total) + double(w));
    stack.back().last = w;
  };
  auto repeat = [&](double factor) {
    auto& f = stack.back();
    auto grown = capped(double(f.last) * factor);
    f.total = capped(double(f.total) - double(f.last) + double(grown));
    f.last = grown;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\\' && i + 1 < s.size()) {
      ++i;
      unit(1);
    } else if (c == '[') {
      // A class is one unit: skip to its closing ']' (a leading ']' or
      // '^]' is a member, and so are [:name:] classes inside).
      size_t j = i + 1;
      if (j < s.size() && s[j] == '^')
        ++j;
      if (j < s.size() && s[j] == ']')
        ++j;
      while (j < s.size() && s[j] != ']') {
        if (s[j] == '[' && j + 1 < s.size() && s[j + 1] == ':') {
          auto end = s.find(":]", j + 2);
          j = end == std::string_view::npos ? s.size() : end + 2;
        } else {
          ++j;
        }
      }
      i = j;
      unit(1);
    } else if (c == '(') {
      stack.emplace_back();
    } else if (c == ')' && stack.size() > 1) {
      auto inner = stack.back().total + 1;
      stack.pop_back();
      unit(inner);
    } else if (c == '+') {
      repeat(2);
    } else if (c == '*' || c == '?') {
      repeat(1);
    } else if (c == '{') {
      if (auto n = bound_at(s, i))
        repeat(double(*n) + 1);
      else
        unit(1);
    } else {
      unit(1);
    }
  }
  size_t total = 0;
  for (auto& f : stack)
    total = capped(double(total) + double(f.total));
  return total;
}

posix_regex::posix_regex(const std::string& pattern, int flags) {
  if (auto size = expanded_size(pattern); size > max_expanded_size) {
    refused_ = "too complex: its repetitions expand to more than "
               + std::to_string(max_expanded_size) + " states";
    return;
  }
  rc_ = ::regcomp(&re_, pattern.c_str(), REG_EXTENDED | flags);
}

posix_regex::~posix_regex() {
  if (rc_ == 0)
    ::regfree(&re_);
}

std::string posix_regex::error() const {
  if (!refused_.empty())
    return refused_;
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
