#include "actors/channels/kit/config_reader.hpp"

#include <cctype>

namespace nb::chan {

std::string snake_case(const std::string& camel) {
  std::string out;
  for (char c : camel) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

config_reader::config_reader(std::string name, const std::string& raw_json)
  : name_(std::move(name)) {
  try {
    obj_ = nlohmann::json::parse(raw_json.empty() ? "{}" : raw_json);
  } catch (const std::exception& e) {
    errors_.push_back("channels." + name_ + ": invalid JSON (" + e.what()
                      + ")");
    obj_ = nlohmann::json::object();
    return;
  }
  if (!obj_.is_object()) {
    errors_.push_back("channels." + name_ + ": must be an object");
    obj_ = nlohmann::json::object();
  }
}

const nlohmann::json* config_reader::find(const char* key) const {
  auto it = obj_.find(key);
  if (it == obj_.end())
    it = obj_.find(snake_case(key));
  if (it == obj_.end() || it->is_null())
    return nullptr;
  return &*it;
}

std::string config_reader::path(const std::string& key) const {
  return "channels." + name_ + "." + key;
}

void config_reader::fail(const std::string& key, const std::string& reason) {
  errors_.push_back(path(key) + ": " + reason);
}

bool config_reader::has(const char* key) const {
  return find(key) != nullptr;
}

std::string config_reader::str(const char* key, std::string def) {
  auto v = find(key);
  if (!v)
    return def;
  if (!v->is_string()) {
    fail(key, "must be a string");
    return def;
  }
  return v->get<std::string>();
}

std::string config_reader::required_str(const char* key) {
  auto s = str(key);
  if (s.empty() && (!find(key) || find(key)->is_string()))
    fail(key, "missing");
  return s;
}

int64_t config_reader::integer(const char* key, int64_t def, int64_t min,
                               int64_t max) {
  auto v = find(key);
  if (!v)
    return def;
  if (!v->is_number_integer()) {
    fail(key, "must be an integer");
    return def;
  }
  auto x = v->get<int64_t>();
  if (x < min || x > max) {
    fail(key, "must be between " + std::to_string(min) + " and "
                + std::to_string(max) + " (got " + std::to_string(x) + ")");
    return def;
  }
  return x;
}

double config_reader::number(const char* key, double def, double min,
                             double max) {
  auto v = find(key);
  if (!v)
    return def;
  if (!v->is_number()) {
    fail(key, "must be a number");
    return def;
  }
  auto x = v->get<double>();
  if (x < min || x > max) {
    fail(key, "must be between " + std::to_string(min) + " and "
                + std::to_string(max));
    return def;
  }
  return x;
}

bool config_reader::boolean(const char* key, bool def) {
  auto v = find(key);
  if (!v)
    return def;
  if (!v->is_boolean()) {
    fail(key, "must be true or false");
    return def;
  }
  return v->get<bool>();
}

std::vector<std::string> config_reader::strings(const char* key) {
  std::vector<std::string> out;
  auto v = find(key);
  if (!v)
    return out;
  if (!v->is_array()) {
    fail(key, "must be a list of strings");
    return out;
  }
  for (auto& x : *v) {
    if (x.is_string())
      out.push_back(x.get<std::string>());
    else if (x.is_number_integer())
      out.push_back(std::to_string(x.get<int64_t>()));
    else
      fail(key, "must be a list of strings");
  }
  return out;
}

std::string config_reader::choice(const char* key, std::string def,
                                  const std::vector<std::string>& allowed) {
  auto s = str(key, def);
  for (auto& a : allowed)
    if (a == s)
      return s;
  std::string list;
  for (auto& a : allowed)
    list += (list.empty() ? "" : ", ") + a;
  fail(key, "must be one of " + list + " (got \"" + s + "\")");
  return def;
}

std::string config_reader::error() const {
  std::string out;
  for (auto& e : errors_)
    out += (out.empty() ? "" : "; ") + e;
  return out;
}

} // namespace nb::chan
