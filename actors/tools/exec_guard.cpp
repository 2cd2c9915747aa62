// Deny patterns and shell segment splitting for the exec guard. POSIX
// regex (glibc) rather than std::regex: libstdc++'s recursive matcher
// overflows the stack on commands of a few tens of kilobytes.
#include "actors/tools/exec_guard.hpp"

#include <cctype>
#include <memory>

#include <regex.h>

namespace nb {

namespace {

// One compiled POSIX extended regex.
class posix_regex {
public:
  explicit posix_regex(const std::string& pattern) {
    rc_ = ::regcomp(&re_, pattern.c_str(),
                    REG_EXTENDED | REG_NOSUB | REG_NEWLINE);
  }
  posix_regex(const posix_regex&) = delete;
  posix_regex& operator=(const posix_regex&) = delete;
  ~posix_regex() {
    if (rc_ == 0)
      ::regfree(&re_);
  }
  bool ok() const {
    return rc_ == 0;
  }
  std::string error() const {
    char buf[256];
    ::regerror(rc_, &re_, buf, sizeof buf);
    return buf;
  }
  bool search(const std::string& text) const {
    return rc_ == 0 && ::regexec(&re_, text.c_str(), 0, nullptr, 0) == 0;
  }

private:
  regex_t re_{};
  int rc_ = -1;
};

// Python-style escapes and groups that POSIX ERE lacks, rewritten.
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

std::string lowercase(const std::string& s) {
  std::string out = s;
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "a \<newline> b" is one line to the shell: join before matching.
std::string join_continuations(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      ++i;
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

} // namespace

const std::vector<std::string>& builtin_deny_patterns() {
  static const std::vector<std::string> patterns{
    R"(\brm[[:space:]]+-[rf]{1,2}\b)",
    R"(\bdel[[:space:]]+/[fq]\b)",
    R"(\brmdir[[:space:]]+/s\b)",
    R"((^|[;&|][[:space:]]*)format([^=[:alnum:]_]|$))",
    R"(\b(mkfs|diskpart)\b)",
    R"(\bdd[[:space:]]+if=)",
    R"(>[[:space:]]*/dev/sd)",
    R"(\b(shutdown|reboot|poweroff)\b)",
    R"(:\(\)[[:space:]]*\{.*\};[[:space:]]*:)",
    // The agent's own state files are written by the gateway only.
    R"(>>?[[:space:]]*[^[:space:]]*(history\.jsonl|\.dream_cursor))",
    R"(\btee\b[^|;&<>]*(history\.jsonl|\.dream_cursor))",
    R"(\b(cp|mv)\b([[:space:]]+[^[:space:]|;&<>]+)+[[:space:]]+)"
    R"([^[:space:]]*(history\.jsonl|\.dream_cursor))",
    R"(\bdd\b[^|;&<>]*\bof=[^[:space:]]*(history\.jsonl|\.dream_cursor))",
    R"(\bsed[[:space:]]+-i[^|;&<>]*(history\.jsonl|\.dream_cursor))",
  };
  return patterns;
}

std::string check_deny_patterns(const std::string& command,
                                const std::vector<std::string>& extra) {
  auto text = lowercase(join_continuations(command));
  std::vector<std::string> targets{text};
  for (auto& seg : split_shell_segments(text))
    targets.push_back(seg);
  std::vector<std::unique_ptr<posix_regex>> res;
  for (auto& p : extra) {
    res.push_back(std::make_unique<posix_regex>(to_posix(p)));
    if (!res.back()->ok())
      return "Error: Command blocked: the deny pattern '" + p
             + "' in tools.exec.denyPatterns is not a valid regular "
               "expression ("
             + res.back()->error() + ")";
  }
  for (auto& p : builtin_deny_patterns())
    res.push_back(std::make_unique<posix_regex>(p));
  for (auto& re : res)
    for (auto& t : targets)
      if (re->search(t))
        return "Error: Command blocked by deny pattern filter";
  return {};
}

std::vector<std::string> split_shell_segments(const std::string& command) {
  std::vector<std::string> segments;
  std::string current;
  char quote = 0;
  bool escaped = false;
  int depth = 0;
  auto flush = [&] {
    auto b = current.find_first_not_of(" \t\r\n");
    if (b != std::string::npos) {
      auto e = current.find_last_not_of(" \t\r\n");
      segments.push_back(current.substr(b, e - b + 1));
    }
    current.clear();
  };
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (escaped) {
      current.push_back(c);
      escaped = false;
    } else if (c == '\\' && quote != '\'') {
      current.push_back(c);
      escaped = true;
    } else if (quote) {
      current.push_back(c);
      if (c == quote)
        quote = 0;
    } else if (c == '\'' || c == '"' || c == '`') {
      current.push_back(c);
      quote = c;
    } else if (c == '(') {
      ++depth;
      current.push_back(c);
    } else if (c == ')' && depth > 0) {
      --depth;
      current.push_back(c);
    } else if (depth == 0
               && (command.compare(i, 2, "&&") == 0
                   || command.compare(i, 2, "||") == 0)) {
      flush();
      ++i;
    } else if (depth == 0 && c == '&' && !(i > 0 && (command[i - 1] == '<'
                                                     || command[i - 1] == '>'))
               && command.compare(i, 2, "&>") != 0) {
      current.push_back(c);
      flush();
    } else if (depth == 0
               && (c == ';' || c == '|' || c == '\n' || c == '\r')) {
      flush();
    } else {
      current.push_back(c);
    }
  }
  flush();
  return segments;
}

} // namespace nb
