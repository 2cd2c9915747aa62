// Reading one channels.<name> object as the user wrote it: camelCase or
// snake_case keys, and errors that name the key path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::chan {

/// Typed access to a channel's raw config. Every problem is recorded as
/// "channels.<name>.<key>: <reason>"; error() joins them.
class config_reader {
public:
  config_reader(std::string name, const std::string& raw_json);

  /// The key as written (camelCase) or its snake_case spelling.
  bool has(const char* key) const;
  std::string str(const char* key, std::string def = "");
  /// Records "missing" when absent or empty.
  std::string required_str(const char* key);
  int64_t integer(const char* key, int64_t def, int64_t min, int64_t max);
  double number(const char* key, double def, double min, double max);
  bool boolean(const char* key, bool def);
  /// A list of strings; numbers are accepted and written as text.
  std::vector<std::string> strings(const char* key);
  /// One of `allowed`; records the choices otherwise.
  std::string choice(const char* key, std::string def,
                     const std::vector<std::string>& allowed);

  /// The value as written (nullptr when absent or null), for keys that take
  /// more than one type; the caller reads it and calls fail() if needed.
  const nlohmann::json* raw(const char* key) const { return find(key); }

  /// Records a problem found by the caller.
  void fail(const std::string& key, const std::string& reason);
  /// "" when every key was fine.
  std::string error() const;
  const std::string& name() const { return name_; }

private:
  const nlohmann::json* find(const char* key) const;
  std::string path(const std::string& key) const;

  std::string name_;
  nlohmann::json obj_;
  std::vector<std::string> errors_;
};

/// "apiBase" -> "api_base".
std::string snake_case(const std::string& camel);

} // namespace nb::chan
