// The drivers' command lines: "--name value" pairs, read the same way by
// soak_driver and load_driver.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace nb::soak {

/// The "--name value" pairs in order; a name without its value is an error
/// naming it. Which names are known is the caller's to say.
inline std::vector<std::pair<std::string, std::string>>
flag_pairs(int argc, char** argv) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 1; i < argc; i += 2) {
    std::string name = argv[i];
    if (i + 1 >= argc)
      throw std::invalid_argument("missing value after " + name);
    out.emplace_back(name, argv[i + 1]);
  }
  return out;
}

} // namespace nb::soak
