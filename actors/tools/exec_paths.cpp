// The exec guard's path scan: which files a command names, and whether
// they stay inside the working directory or the workspace.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "actors/tools/exec_guard.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

// Shell words with quotes and escapes removed, operators as separators.
// Returns false on unbalanced quotes.
bool shell_words(const std::string& s, std::vector<std::string>& words) {
  std::string cur;
  bool in_word = false;
  auto flush = [&] {
    if (in_word)
      words.push_back(cur);
    cur.clear();
    in_word = false;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\\' && i + 1 < s.size()) {
      if (s[i + 1] != '\n') {
        cur.push_back(s[i + 1]);
        in_word = true;
      }
      ++i;
    } else if (c == '\'') {
      auto end = s.find('\'', i + 1);
      if (end == std::string::npos)
        return false;
      cur += s.substr(i + 1, end - i - 1);
      in_word = true;
      i = end;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < s.size() && s[j] != '"'; ++j) {
        if (s[j] == '\\' && j + 1 < s.size()
            && std::strchr("\\\"$`\n", s[j + 1]))
          ++j;
        cur.push_back(s[j]);
      }
      if (j >= s.size())
        return false;
      in_word = true;
      i = j;
    } else if (std::isspace(static_cast<unsigned char>(c))
               || std::strchr(";&|<>()`", c)) {
      flush();
    } else {
      cur.push_back(c);
      in_word = true;
    }
  }
  flush();
  return true;
}

bool is_assignment(const std::string& word, size_t upto) {
  auto eq = word.find('=');
  if (eq == std::string::npos || eq >= upto || eq == 0)
    return false;
  size_t i = word[0] == '-' ? (word.size() > 1 && word[1] == '-' ? 2 : 1) : 0;
  if (i >= eq)
    return false;
  for (; i < eq; ++i) {
    auto c = static_cast<unsigned char>(word[i]);
    if (!std::isalnum(c) && c != '_' && c != '.' && c != '-')
      return false;
  }
  return true;
}

std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()
        && std::isxdigit(static_cast<unsigned char>(s[i + 1]))
        && std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr,
                                                16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Candidates in one word (which may be a whole quoted script).
void word_paths(std::string w, std::vector<std::string>& out) {
  for (const char* home : {"${HOME}", "$HOME"}) {
    auto n = std::strlen(home);
    if (w.compare(0, n, home) == 0 && (w.size() == n || w[n] == '/')) {
      std::string tilde(1, '~');
      tilde.append(w, n, std::string::npos);
      w.swap(tilde);
    }
  }
  std::string lower = w;
  for (auto& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t at = lower.find("file://"); at != std::string::npos;
       at = lower.find("file://", at + 7)) {
    auto p = w.find('/', at + 7);
    if (p == std::string::npos)
      continue;
    auto end = w.find_first_of(" \t\r\n\"'<>|;&?#)", p);
    out.push_back(percent_decode(w.substr(p, end - p)));
  }
  for (size_t i = 0; i < w.size(); ++i) {
    char c = w[i];
    if (c != '/' && c != '~')
      continue;
    char prev = i ? w[i - 1] : ' ';
    bool assign = is_assignment(w, i);
    bool boundary = c == '/' ? std::strchr(" \t\r\n=({,'\"<>|;&`", prev)
                               || (assign && prev == ':')
                             : std::strchr(" \t\r\n", prev)
                                 || (assign && (prev == '=' || prev == ':'));
    if (!boundary)
      continue;
    auto word_start = w.find_last_of(" \t\r\n", i);
    auto prefix = w.substr(word_start == std::string::npos ? 0
                                                           : word_start + 1,
                           i - (word_start == std::string::npos
                                  ? 0
                                  : word_start + 1));
    // URLs (http://host/x) are not local files; file:// was taken above.
    if (prefix.find("://") != std::string::npos)
      continue;
    // A word that starts with the path is all path ("/b c" was quoted);
    // inside a longer word (a script for sh -c) the path ends at the
    // first shell separator.
    auto end = i == 0 ? w.size()
                      : w.find_first_of(assign ? " \t\r\n\"'<>|;&()`:"
                                               : " \t\r\n\"'<>|;&()`",
                                        i + 1);
    if (assign)
      end = std::min(end, w.find(':', i + 1));
    if (end == std::string::npos)
      end = w.size();
    out.push_back(w.substr(i, end - i));
    i = end;
  }
}

bool benign_device(const std::string& p) {
  static const std::set<std::string> ok{
    "/dev/null",  "/dev/zero",   "/dev/full",   "/dev/random",
    "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr",
    "/dev/tty"};
  return ok.count(p) > 0 || p.rfind("/dev/fd/", 0) == 0;
}

std::string outside_error() {
  return std::string{"Error: Command blocked by safety guard (path outside "
                     "working dir)"}
         + boundary_note;
}

} // namespace

std::vector<std::string> extract_command_paths(const std::string& command) {
  std::vector<std::string> words;
  // Unbalanced quotes: scan the raw text instead (fail closed).
  if (!shell_words(command, words))
    words = {command};
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (auto& w : words) {
    std::vector<std::string> found;
    word_paths(w, found);
    for (auto& p : found)
      if (seen.insert(p).second)
        out.push_back(p);
  }
  return out;
}

std::string check_command_paths(const std::string& command,
                                const std::string& cwd,
                                const std::string& workspace,
                                const std::vector<std::string>& extra_roots) {
  if (command.find("../") != std::string::npos
      || command.find("..\\") != std::string::npos)
    return std::string{"Error: Command blocked by safety guard (path "
                       "traversal detected)"}
           + boundary_note;
  auto cwd_real = resolve_real_path(cwd, "/");
  auto ws_real = resolve_real_path(workspace, "/");
  std::vector<std::string> extra;
  for (auto& root : extra_roots)
    if (auto r = resolve_real_path(root, "/"); r.ok())
      extra.push_back(r.path);
  auto inside = [&](const std::string& p) {
    if ((cwd_real.ok() && path_within(p, cwd_real.path))
        || (ws_real.ok() && path_within(p, ws_real.path)))
      return true;
    for (auto& root : extra)
      if (path_within(p, root))
        return true;
    return false;
  };
  for (auto raw : extract_command_paths(command)) {
    if (benign_device(raw))
      continue;
    if (raw == "~+" || raw.rfind("~+/", 0) == 0) {
      raw = cwd + raw.substr(2);
    } else if (raw.size() > 1 && raw[0] == '~'
               && (raw[1] == '+' || raw[1] == '-')) {
      // ~- and ~+N / ~-N name directory-stack entries we cannot know.
      return outside_error();
    } else if (raw[0] == '~') {
      auto expanded = expand_user(raw);
      if (expanded == raw)
        continue; // ~nosuchuser stays a literal relative name
      raw = expanded;
    }
    auto real = resolve_real_path(raw, cwd);
    if (!real.ok())
      return outside_error();
    if (benign_device(real.path))
      continue;
    if (!inside(real.path))
      return outside_error();
  }
  // Relative words too: "cat link/secret" where link is a symlink in the
  // workspace that points out of it. Words that name nothing resolve
  // inside, so this costs a few lstat calls and no false alarms.
  std::vector<std::string> words;
  if (shell_words(command, words)) {
    for (auto& w : words) {
      if (w.empty() || w[0] == '/' || w[0] == '~'
          || w.find("://") != std::string::npos)
        continue;
      auto real = resolve_real_path(w, cwd);
      if (real.ok() && !inside(real.path))
        return outside_error();
    }
  }
  return {};
}

} // namespace nb
