// Shared helpers for the config tests: an injected environment, result
// unwrapping, temp directories.
#pragma once

#include <doctest/doctest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "config/load.hpp"

namespace nb::test {

/// An environment made of exactly `vars` (the real one is never consulted).
inline env_lookup env_of(std::map<std::string, std::string> vars = {}) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto i = vars.find(name);
    if (i == vars.end())
      return std::nullopt;
    return i->second;
  };
}

inline loaded_settings ok(const load_result& r) {
  if (auto* e = std::get_if<config_error>(&r))
    FAIL("unexpected config error: " << e->message());
  return std::get<loaded_settings>(r);
}

inline config_error err(const load_result& r) {
  REQUIRE_MESSAGE(std::holds_alternative<config_error>(r),
                  "expected a config error");
  return std::get<config_error>(r);
}

inline load_result parse(const std::string& text,
                         std::map<std::string, std::string> vars = {}) {
  return parse_settings(text, "/tmp/test-config.json", env_of(std::move(vars)));
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

inline bool any_contains(const std::vector<std::string>& lines,
                         const std::string& needle) {
  for (const auto& line : lines)
    if (contains(line, needle))
      return true;
  return false;
}

/// A fresh directory under /tmp, removed with everything in it.
struct temp_dir {
  std::string path;
  temp_dir() {
    char tmpl[] = "/tmp/nb-config-test-XXXXXX";
    const char* made = mkdtemp(tmpl);
    REQUIRE(made != nullptr);
    path = made;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out{path, std::ios::binary | std::ios::trunc};
  out << text;
}

} // namespace nb::test
