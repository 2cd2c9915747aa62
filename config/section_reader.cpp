#include "config/section_reader.hpp"

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "config/pipeline.hpp"

namespace nb::config {

using nlohmann::json;

const json* field(const json& obj, std::string_view camel) {
  if (!obj.is_object())
    return nullptr;
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (key_matches(it.key(), camel))
      return &*it;
  return nullptr;
}

std::string env_name(std::string_view path) {
  std::string out = "NANOBOT_";
  for (char c : snake_case(path))
    out += c == '.' ? std::string{"__"}
                    : std::string(1, static_cast<char>(std::toupper(
                                       static_cast<unsigned char>(c))));
  return out;
}

json section_reader::object(const json& parent, std::string_view key,
                            const std::string& path) {
  auto* j = field(parent, key);
  if (j == nullptr || j->is_null())
    return json::object();
  if (!j->is_object()) {
    fail(path, "expected an object, found " + type_name(*j));
    return json::object();
  }
  return *j;
}

std::optional<std::string> section_reader::text(const json& obj,
                                                std::string_view key,
                                                const std::string& path) {
  if (auto v = env(env_name(path)))
    return *v;
  auto* j = field(obj, key);
  if (j == nullptr || j->is_null())
    return std::nullopt;
  if (!j->is_string()) {
    fail(path, "expected a string, found " + type_name(*j));
    return std::nullopt;
  }
  auto r = interpolate(j->get<std::string>(), env);
  if (!r.missing.empty()) {
    fail(path, "environment variable " + r.missing.front() + " is not set");
    return std::nullopt;
  }
  return r.text;
}

std::optional<int64_t> section_reader::integer(const json& obj,
                                               std::string_view key,
                                               const std::string& path,
                                               int64_t lo, int64_t hi) {
  std::optional<int64_t> v;
  if (auto e = env(env_name(path))) {
    try {
      size_t used = 0;
      v = std::stoll(*e, &used);
      if (used != e->size())
        v.reset();
    } catch (const std::exception&) {
    }
    if (!v) {
      fail(path, "expected an integer in " + env_name(path));
      return std::nullopt;
    }
  } else if (auto* j = field(obj, key); j != nullptr && !j->is_null()) {
    if (!j->is_number_integer()) {
      fail(path, "expected an integer, found " + type_name(*j));
      return std::nullopt;
    }
    v = j->get<int64_t>();
  }
  if (v && (*v < lo || *v > hi)) {
    fail(path, "must be between " + std::to_string(lo) + " and "
                 + std::to_string(hi));
    return std::nullopt;
  }
  return v;
}

std::optional<double> section_reader::real(const json& obj,
                                           std::string_view key,
                                           const std::string& path, double lo,
                                           double hi) {
  std::optional<double> v;
  if (auto e = env(env_name(path))) {
    try {
      size_t used = 0;
      v = std::stod(*e, &used);
      if (used != e->size())
        v.reset();
    } catch (const std::exception&) {
    }
    if (!v) {
      fail(path, "expected a number in " + env_name(path));
      return std::nullopt;
    }
  } else if (auto* j = field(obj, key); j != nullptr && !j->is_null()) {
    if (!j->is_number()) {
      fail(path, "expected a number, found " + type_name(*j));
      return std::nullopt;
    }
    v = j->get<double>();
  }
  if (v && (!std::isfinite(*v) || *v < lo || *v > hi)) {
    std::ostringstream range;
    range << "must be between " << lo << " and " << hi;
    fail(path, range.str());
    return std::nullopt;
  }
  return v;
}

std::optional<bool> section_reader::flag(const json& obj, std::string_view key,
                                         const std::string& path) {
  if (auto e = env(env_name(path))) {
    if (*e == "true" || *e == "1")
      return true;
    if (*e == "false" || *e == "0")
      return false;
    fail(path, "expected true or false in " + env_name(path));
    return std::nullopt;
  }
  auto* j = field(obj, key);
  if (j == nullptr || j->is_null())
    return std::nullopt;
  if (!j->is_boolean()) {
    fail(path, "expected true or false, found " + type_name(*j));
    return std::nullopt;
  }
  return j->get<bool>();
}

void section_reader::fail(const std::string& path, std::string reason) {
  if (!error)
    error = config_error{path, std::move(reason)};
}

std::optional<config_error> read_config_json(const std::string& path,
                                             json& out) {
  out = json::object();
  try {
    std::ifstream in{path, std::ios::binary};
    if (!in)
      return std::nullopt; // no file: defaults
    std::ostringstream buf;
    buf << in.rdbuf();
    out = json::parse(buf.str(), nullptr, false, true);
    if (out.is_discarded())
      return config_error{"", "the config file is not valid JSON"};
  } catch (const std::exception&) {
    return config_error{"", "unexpected failure while loading " + path};
  }
  return std::nullopt;
}

} // namespace nb::config
