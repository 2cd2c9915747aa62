// A private temporary directory for tests (mkdtemp under /tmp), removed with
// everything in it at scope exit, and whole-file read/write helpers.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace nb::test {

struct scratch_dir {
  std::string path;
  scratch_dir() {
    char tmpl[] = "/tmp/nb-test-XXXXXX";
    if (!::mkdtemp(tmpl))
      std::abort();
    path = tmpl;
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  /// `path` + "/" + rel.
  std::string at(const std::string& rel) const {
    return path + "/" + rel;
  }
};

inline std::string read_all(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// Writes `text` to `path`, creating parent directories.
inline void write_all(const std::string& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(
    std::filesystem::path{path}.parent_path(), ec);
  std::ofstream out{path, std::ios::binary | std::ios::trunc};
  out << text;
}

} // namespace nb::test
