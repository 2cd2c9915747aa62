// Runs Prometheus's own linter on exposition text: `promtool check metrics`
// (Debian package prometheus, installed by deploy/install-deps.sh).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include <unistd.h>

namespace nb::test {

/// Whether promtool is on PATH.
inline bool promtool_installed() {
  return std::system("command -v promtool >/dev/null 2>&1") == 0;
}

/// What `promtool check metrics` says about `text` (its stdout and stderr;
/// empty when it found nothing), or nullopt when promtool is not installed.
inline std::optional<std::string> promtool_check(const std::string& text) {
  if (!promtool_installed())
    return std::nullopt;
  auto path = "/tmp/nb-promtool-" + std::to_string(::getpid()) + ".txt";
  std::ofstream{path} << text;
  std::string said;
  FILE* p = ::popen(("promtool check metrics < " + path + " 2>&1").c_str(), "r");
  if (p == nullptr) {
    said = "cannot start promtool";
  } else {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
      said.append(buf, n);
    if (::pclose(p) != 0 && said.empty())
      said = "promtool failed without a word";
  }
  std::remove(path.c_str());
  return said;
}

} // namespace nb::test
