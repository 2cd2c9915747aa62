// Deny patterns and shell segment splitting for the exec guard. POSIX
// regex (glibc) rather than std::regex: libstdc++'s recursive matcher
// overflows the stack on commands of a few tens of kilobytes.
#include "actors/tools/exec_guard.hpp"

#include <cctype>
#include <memory>

#include "config/posix_regex.hpp"
#include "actors/common/strings.hpp"

namespace nb {

namespace {

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

std::string preview_segment(const std::string& seg) {
  return seg.size() > 80 ? seg.substr(0, 80) + "..." : seg;
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
  auto text = ascii_lower(join_continuations(command));
  std::vector<std::string> targets{text};
  for (auto& seg : split_shell_segments(text))
    targets.push_back(seg);
  std::vector<std::unique_ptr<posix_regex>> res;
  for (auto& p : extra) {
    res.push_back(std::make_unique<posix_regex>(to_posix(p),
                                                REG_NOSUB | REG_NEWLINE));
    if (!res.back()->ok())
      return "Error: Command blocked: the deny pattern '" + p
             + "' in tools.exec.denyPatterns is not a valid regular "
               "expression ("
             + res.back()->error() + ")";
  }
  for (auto& p : builtin_deny_patterns())
    res.push_back(
      std::make_unique<posix_regex>(p, REG_NOSUB | REG_NEWLINE));
  for (auto& re : res)
    for (auto& t : targets)
      if (re->search(t))
        return "Error: Command blocked by deny pattern filter";
  return {};
}

allow_verdict check_allow_patterns(const std::string& command,
                                   const std::vector<std::string>& allow,
                                   std::string& error) {
  if (allow.empty())
    return allow_verdict::not_configured;
  std::vector<std::unique_ptr<posix_regex>> res;
  for (auto& p : allow) {
    // Full match: the whole segment, not a part of it.
    res.push_back(std::make_unique<posix_regex>("^(" + to_posix(p) + ")$",
                                                REG_NOSUB));
    if (!res.back()->ok()) {
      error = "Error: Command blocked: the allow pattern '" + p
              + "' in tools.exec.allowPatterns is not a valid regular "
                "expression ("
              + res.back()->error() + ")";
      return allow_verdict::refused;
    }
  }
  auto text = join_continuations(command);
  const char* not_listed
    = "Error: Command blocked by allowlist filter (not in allowlist)";
  for (auto marker : {"$(", "`", "<(", ">("})
    if (text.find(marker) != std::string::npos) {
      error = std::string{not_listed}
              + "; command substitution is not allowed in allowlist mode";
      return allow_verdict::refused;
    }
  auto segments = split_shell_segments(text);
  if (segments.empty()) {
    error = not_listed;
    return allow_verdict::refused;
  }
  for (auto& seg : segments) {
    bool ok = false;
    for (auto& re : res)
      ok = ok || re->search(seg);
    if (!ok) {
      error = std::string{not_listed} + ": " + preview_segment(seg);
      return allow_verdict::refused;
    }
  }
  return allow_verdict::allowed;
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
