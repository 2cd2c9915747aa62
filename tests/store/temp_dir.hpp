// Test helpers for the store: a private temp directory and raw file access.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <sys/stat.h>

#include <caf/expected.hpp>

#include "actors/store/session_files.hpp"

namespace nb::test {

/// mkdtemp under /tmp, removed with everything in it at scope exit.
struct temp_dir {
  std::string path;
  temp_dir() {
    char tmpl[] = "/tmp/nb-store-XXXXXX";
    if (!::mkdtemp(tmpl))
      std::abort();
    path = tmpl;
  }
  temp_dir(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void spit(const std::string& path, const std::string& text) {
  std::ofstream out{path, std::ios::binary | std::ios::trunc};
  out << text;
}

/// Names in `dir` (not recursive), without the session-files lock that
/// every access leaves behind (as the original's does): it holds no data.
inline std::set<std::string> list_dir(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (auto& e : std::filesystem::directory_iterator{dir, ec})
    if (e.path().filename() != nb::session_files_lock)
      out.insert(e.path().filename().string());
  return out;
}

/// Permission bits of `path` (0 when it cannot be stat'ed).
inline unsigned mode_of(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return 0;
  return st.st_mode & 07777;
}

/// The error text of `r`, or "" when it holds a value (safe to evaluate in
/// a doctest message even on success).
template <class T>
std::string why(const caf::expected<T>& r) {
  return r ? std::string{} : nb::store_error_text(r.error());
}

} // namespace nb::test
