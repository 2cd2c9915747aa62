// POSIX extended regular expressions (glibc) with Python-style syntax
// translated; in config/ because the loader checks the patterns users write
// (tools.exec.denyPatterns) with the same translation exec uses, and every
// library links nb_config. Used instead of std::regex because libstdc++'s
// recursive matcher overflows the stack on inputs of a few tens of KiB.
#pragma once

#include <string>
#include <string_view>

#include <regex.h>

namespace nb {

/// Rewrites the Python/PCRE bits POSIX ERE lacks: (?:...), \d \s \w and
/// their negations, backslashes inside classes.
std::string to_posix(const std::string& pattern);

/// One compiled regex; not copyable.
class posix_regex {
public:
  /// Compiles `pattern` as written (already POSIX); `flags` adds to
  /// REG_EXTENDED (REG_ICASE, REG_NOSUB, REG_NEWLINE...).
  posix_regex(const std::string& pattern, int flags);
  posix_regex(const posix_regex&) = delete;
  posix_regex& operator=(const posix_regex&) = delete;
  ~posix_regex();

  bool ok() const {
    return rc_ == 0;
  }

  /// The compile error text ("" when ok).
  std::string error() const;

  /// Whether the pattern occurs in the NUL-terminated `text`.
  bool search(const std::string& text) const;

  /// Whether the pattern occurs in `text` (no NUL needed: REG_STARTEND).
  bool search(std::string_view text) const;

private:
  regex_t re_{};
  int rc_ = -1;
};

} // namespace nb
