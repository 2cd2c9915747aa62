// POSIX extended regular expressions (glibc) with Python-style syntax
// translated; in config/ because the loader checks the patterns users write
// (tools.exec.denyPatterns) with the same translation exec uses, and every
// library links nb_config. Used instead of std::regex because libstdc++'s
// recursive matcher overflows the stack on inputs of a few tens of KiB.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <regex.h>

namespace nb {

/// Rewrites the Python/PCRE bits POSIX ERE lacks: (?:...), \d \s \w and
/// their negations, backslashes inside classes.
std::string to_posix(const std::string& pattern);

/// An upper bound of the pattern's size once glibc has expanded its
/// repetitions: regcomp copies the repeated part for every `+` and for
/// every count of `{n,m}`, so stacked or nested repetitions grow
/// exponentially ("a++++..." took gigabytes, found by fuzz_config).
size_t expanded_size(std::string_view ere);

/// Patterns whose expanded_size is larger are refused before regcomp.
inline constexpr size_t max_expanded_size = 10000;

/// One compiled regex; not copyable.
class posix_regex {
public:
  /// Compiles `pattern` as written (already POSIX); `flags` adds to
  /// REG_EXTENDED (REG_ICASE, REG_NOSUB, REG_NEWLINE...). A pattern past
  /// max_expanded_size is not compiled and says so in error().
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
  std::string refused_; ///< why the pattern was not compiled at all
};

} // namespace nb
