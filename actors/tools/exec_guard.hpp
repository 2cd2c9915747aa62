// Tools: the exec guard. Deny patterns and a best-effort scan for paths
// outside the workspace in a shell command, checked before anything runs.
//
// Limits (this is an application-level filter, not a sandbox): commands
// that build paths at run time (variables other than $HOME, globs,
// base64 | sh, eval, interpreters with inline code, a symlink created by
// the same command, relative paths inside an `sh -c` script) are not
// seen; a kernel sandbox is what contains those. The internal-URL check
// of nanobot's guard is not part of this one.
#pragma once

#include <string>
#include <vector>

namespace nb {

/// The built-in deny patterns, as POSIX extended regular expressions
/// (GNU \b allowed), matched against the lowercased command.
const std::vector<std::string>& builtin_deny_patterns();

/// Returns "Error: Command blocked by deny pattern filter" when a built-in
/// or `extra` pattern (config denyPatterns, Python-style syntax translated
/// to POSIX) matches the lowercased command or one of its top-level
/// segments; an extra pattern that does not compile blocks too, with an
/// error naming it. Returns "" when the command may run.
std::string check_deny_patterns(const std::string& command,
                                const std::vector<std::string>& extra);

/// How allowlist mode judged a command.
enum class allow_verdict { not_configured, allowed, refused };

/// With `allow` empty: not_configured. Otherwise allowed when every
/// top-level segment fully matches one pattern and the command has no
/// command substitution ($(...), backticks, <(...), >(...)); else refused
/// with `error` set (also for a pattern that does not compile).
allow_verdict check_allow_patterns(const std::string& command,
                                   const std::vector<std::string>& allow,
                                   std::string& error);

/// Splits `command` on top-level &&, ||, ;, |, & and newlines, respecting
/// quotes, escapes and parentheses.
std::vector<std::string> split_shell_segments(const std::string& command);

/// Returns the path-like words of `command`: absolute and '~' paths (also
/// inside quoted scripts and assignment values), and file:// URIs.
std::vector<std::string> extract_command_paths(const std::string& command);

/// Returns an error when `command` uses "../" or names a path that
/// resolves (symlinks followed) outside both `cwd` and `workspace`: the
/// extracted absolute and '~' paths, and every plain relative word (so a
/// workspace symlink pointing out is caught). "" otherwise. Harmless
/// devices such as /dev/null are allowed, and so is anything below
/// `extra_roots` (the sandbox's configured binds).
std::string check_command_paths(const std::string& command,
                                const std::string& cwd,
                                const std::string& workspace,
                                const std::vector<std::string>& extra_roots = {});

} // namespace nb
