// Type and range checks of leaf values. Texts describe what was expected and
// what kind of value was found, never the value itself.
#include <cmath>

#include "config/model_list.hpp"
#include "config/pipeline.hpp"
#include "config/keys.hpp"

namespace nb::config {

namespace {

using nlohmann::json;

std::string number_text(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15)
    return std::to_string(static_cast<long long>(x));
  auto s = std::to_string(x);
  s.erase(s.find_last_not_of('0') + 1);
  return s;
}

check_failure out_of_range(const key_spec& spec, double x) {
  if (std::isfinite(spec.min) && spec.max < i32_max)
    return {"", "must be between " + number_text(spec.min) + " and "
                  + number_text(spec.max)};
  if (x < spec.min)
    return {"", spec.min == 0 ? "must not be negative"
                              : "must be at least " + number_text(spec.min)};
  return {"", "is too large (at most " + number_text(spec.max) + ")"};
}

check_failure mismatch(const char* expected, const json& x) {
  return {"", std::string{"expected "} + expected + ", found " + type_name(x)};
}

std::optional<check_failure> integer(const key_spec& spec, const json& x,
                                     field_value& v) {
  if (!x.is_number())
    return mismatch("an integer", x);
  double d = x.get<double>();
  if (x.is_number_float() && (!std::isfinite(d) || d != std::floor(d)))
    return check_failure{"", "expected an integer, found a fractional number"};
  if (d < spec.min || d > spec.max)
    return out_of_range(spec, d);
  v.integer = static_cast<int64_t>(d);
  v.number = d;
  return std::nullopt;
}

std::optional<check_failure> number(const key_spec& spec, const json& x,
                                    field_value& v) {
  if (!x.is_number())
    return mismatch(spec.kind == key_kind::number ? "a number"
                                                  : "a number of seconds",
                    x);
  double d = x.get<double>();
  if (!std::isfinite(d) || d < spec.min || d > spec.max)
    return out_of_range(spec, d);
  v.number = d;
  v.integer = static_cast<int64_t>(std::ceil(d)); // seconds round up
  return std::nullopt;
}

std::optional<check_failure> string_list(const json& x, field_value& v) {
  if (!x.is_array())
    return mismatch("a list of strings", x);
  for (size_t i = 0; i < x.size(); ++i) {
    if (!x[i].is_string())
      return check_failure{"[" + std::to_string(i) + "]",
                           "expected a string, found " + type_name(x[i])};
    v.list.push_back(x[i].get<std::string>());
  }
  return std::nullopt;
}

std::optional<check_failure> string_map(const json& x, field_value& v) {
  if (!x.is_object())
    return mismatch("an object of strings", x);
  for (const auto& [key, item] : x.items()) {
    if (!item.is_string())
      return check_failure{"." + display_key(key),
                           "expected a string, found " + type_name(item)};
    v.map[key] = item.get<std::string>();
  }
  return std::nullopt;
}

} // namespace

std::string type_name(const json& value) {
  switch (value.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    case json::value_t::null: return "null";
    default: return "an unsupported value";
  }
}

std::optional<check_failure> check_value(const key_spec& spec, const json& x,
                                         field_value& v) {
  switch (spec.kind) {
    case key_kind::string:
      if (!x.is_string())
        return mismatch("a string", x);
      v.text = x.get<std::string>();
      if (spec.min >= 1 && v.text.empty())
        return check_failure{"", "must not be empty"};
      return std::nullopt;
    case key_kind::boolean:
      if (!x.is_boolean())
        return mismatch("a boolean", x);
      v.flag = x.get<bool>();
      return std::nullopt;
    case key_kind::integer:
      return integer(spec, x, v);
    case key_kind::number:
    case key_kind::seconds:
      return number(spec, x, v);
    case key_kind::string_list:
      return string_list(x, v);
    case key_kind::string_map:
      return string_map(x, v);
    case key_kind::model_list:
      return check_model_list(x, v);
    case key_kind::json_object:
      if (!x.is_object())
        return mismatch("an object", x);
      v.text = x.dump();
      return std::nullopt;
    default:
      return std::nullopt; // sections and ignored keys have no value check
  }
}

} // namespace nb::config
