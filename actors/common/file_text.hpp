// A whole file's bytes as a string: "" when it is missing or unreadable
// (callers that must tell those apart check the file first). File I/O:
// never on a scheduler thread.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace nb {

inline std::string read_file_text(const std::filesystem::path& path) {
  std::ifstream in{path, std::ios::binary};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace nb
