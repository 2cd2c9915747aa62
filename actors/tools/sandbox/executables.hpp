// Finding the sandbox's helper programs at fixed system paths (never
// through the workspace's PATH, which a command could have changed).
#pragma once

#include <initializer_list>
#include <string>

#include <unistd.h>

namespace nb {

/// The first of `paths` that is an executable file, or "".
inline std::string first_executable(std::initializer_list<const char*> paths) {
  for (auto p : paths)
    if (::access(p, X_OK) == 0)
      return p;
  return {};
}

} // namespace nb
