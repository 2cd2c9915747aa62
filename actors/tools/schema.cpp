#include "actors/tools/schema.hpp"
#include "actors/common/strings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace nb {

namespace {

using nlohmann::json;

// The first non-null entry of a type list, or the type string itself.
std::string type_of(const json& schema) {
  if (!schema.is_object())
    return {};
  auto it = schema.find("type");
  if (it == schema.end())
    return {};
  if (it->is_string())
    return it->get<std::string>();
  if (it->is_array())
    for (auto& t : *it)
      if (t.is_string() && t.get<std::string>() != "null")
        return t.get<std::string>();
  return {};
}

bool nullable(const json& schema) {
  if (!schema.is_object())
    return false;
  auto it = schema.find("type");
  if (it != schema.end() && it->is_array())
    for (auto& t : *it)
      if (t == "null")
        return true;
  auto n = schema.find("nullable");
  return n != schema.end() && n->is_boolean() && n->get<bool>();
}

json cast_integer(const json& v) {
  if (v.is_string()) {
    auto s = trim_space(v.get<std::string>());
    const char* first = s.data();
    if (!s.empty() && s[0] == '+')
      ++first;
    int64_t out = 0;
    auto [p, ec] = std::from_chars(first, s.data() + s.size(), out);
    if (!s.empty() && ec == std::errc{} && p == s.data() + s.size())
      return out;
    return v;
  }
  if (v.is_number_float()) {
    auto d = v.get<double>();
    // Only integral values that an int64 holds exactly: 5.0 -> 5.
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.0e15)
      return static_cast<int64_t>(d);
  }
  return v;
}

json cast_number(const json& v) {
  if (!v.is_string())
    return v;
  auto s = trim_space(v.get<std::string>());
  if (s.empty())
    return v;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size())
    return v;
  return d; // non-finite values are reported by the validator
}

json cast_boolean(const json& v) {
  if (!v.is_string())
    return v;
  auto s = ascii_lower(trim_space(v.get<std::string>()));
  if (s == "true" || s == "1" || s == "yes")
    return true;
  if (s == "false" || s == "0" || s == "no")
    return false;
  return v;
}

std::string join_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

} // namespace

json cast_to_schema(const json& value, const json& schema) {
  // A schema that is not an object (an MCP server's "properties": {"x": 5})
  // says nothing to cast to.
  if (!schema.is_object())
    return value;
  auto t = type_of(schema);
  if (t == "integer" && !value.is_number_integer())
    return cast_integer(value);
  if (t == "number" && !value.is_number())
    return cast_number(value);
  if (t == "boolean" && !value.is_boolean())
    return cast_boolean(value);
  if (t == "string" && value.is_number())
    return value.dump();
  if (t == "array" && value.is_array()) {
    auto items = schema.find("items");
    if (items == schema.end() || !items->is_object())
      return value;
    json out = json::array();
    for (auto& x : value)
      out.push_back(cast_to_schema(x, *items));
    return out;
  }
  if ((t == "object" || t.empty()) && value.is_object()) {
    json props = schema.value("properties", json::object());
    json extra = schema.value("additionalProperties", json(true));
    json out = json::object();
    for (auto& [k, v] : value.items()) {
      if (props.is_object() && props.contains(k))
        out[k] = cast_to_schema(v, props[k]);
      else if (extra.is_object())
        out[k] = cast_to_schema(v, extra);
      else
        out[k] = v;
    }
    return out;
  }
  return value;
}

std::vector<std::string> validate_against_schema(const json& value,
                                                 const json& schema,
                                                 const std::string& path) {
  std::vector<std::string> errors;
  auto t = type_of(schema);
  auto label = path.empty() ? std::string{"parameter"} : path;
  if (value.is_null() && nullable(schema))
    return errors;
  if (t == "integer" && !value.is_number_integer())
    return {label + " should be integer"};
  if (t == "number" && !value.is_number())
    return {label + " should be number"};
  if (t == "number" && value.is_number_float()
      && !std::isfinite(value.get<double>()))
    return {label + " must be finite"};
  if ((t == "string" && !value.is_string())
      || (t == "boolean" && !value.is_boolean())
      || (t == "array" && !value.is_array())
      || (t == "object" && !value.is_object()))
    return {label + " should be " + t};
  if (!schema.is_object())
    return errors;
  if (auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
    if (std::find(e->begin(), e->end(), value) == e->end())
      errors.push_back(label + " must be one of " + e->dump());
  }
  if (value.is_number()) {
    auto v = value.get<double>();
    if (auto m = schema.find("minimum"); m != schema.end() && m->is_number()
                                         && v < m->get<double>())
      errors.push_back(label + " must be >= " + m->dump());
    if (auto m = schema.find("maximum"); m != schema.end() && m->is_number()
                                         && v > m->get<double>())
      errors.push_back(label + " must be <= " + m->dump());
  }
  if (value.is_string()) {
    auto n = value.get_ref<const std::string&>().size();
    if (auto m = schema.find("minLength");
        m != schema.end() && m->is_number_integer()
        && n < m->get<size_t>())
      errors.push_back(label + " must be at least " + m->dump() + " chars");
    if (auto m = schema.find("maxLength");
        m != schema.end() && m->is_number_integer()
        && n > m->get<size_t>())
      errors.push_back(label + " must be at most " + m->dump() + " chars");
  }
  if (value.is_object()) {
    json props = schema.value("properties", json::object());
    if (auto r = schema.find("required"); r != schema.end() && r->is_array())
      for (auto& k : *r)
        if (k.is_string() && !value.contains(k.get<std::string>()))
          errors.push_back("missing required "
                           + join_path(path, k.get<std::string>()));
    json extra = schema.value("additionalProperties", json(true));
    for (auto& [k, v] : value.items()) {
      if (props.is_object() && props.contains(k)) {
        auto sub = validate_against_schema(v, props[k], join_path(path, k));
        errors.insert(errors.end(), sub.begin(), sub.end());
      } else if (extra.is_boolean() && !extra.get<bool>()) {
        errors.push_back("unexpected parameter " + join_path(path, k));
      } else if (extra.is_object()) {
        auto sub = validate_against_schema(v, extra, join_path(path, k));
        errors.insert(errors.end(), sub.begin(), sub.end());
      }
    }
  }
  if (value.is_array()) {
    if (auto m = schema.find("minItems"); m != schema.end()
                                          && m->is_number_integer()
                                          && value.size() < m->get<size_t>())
      errors.push_back(label + " must have at least " + m->dump() + " items");
    if (auto m = schema.find("maxItems"); m != schema.end()
                                          && m->is_number_integer()
                                          && value.size() > m->get<size_t>())
      errors.push_back(label + " must be at most " + m->dump() + " items");
    if (auto items = schema.find("items");
        items != schema.end() && items->is_object()) {
      for (size_t i = 0; i < value.size(); ++i) {
        auto sub = validate_against_schema(value[i], *items,
                                           path + "[" + std::to_string(i)
                                             + "]");
        errors.insert(errors.end(), sub.begin(), sub.end());
      }
    }
  }
  return errors;
}

} // namespace nb
