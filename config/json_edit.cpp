#include "config/json_edit.hpp"

#include <cctype>

#include "config/keys.hpp"

namespace nb::config_json {

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64)
    return false;
  for (unsigned char c : name)
    if (!std::isalnum(c) && c != '_' && c != '-')
      return false;
  return true;
}

std::string loose(std::string_view s) {
  std::string out;
  for (unsigned char c : s)
    if (c != '-' && c != '_' && c != ' ')
      out += static_cast<char>(std::tolower(c));
  return out;
}

ojson* find(ojson& obj, std::string_view camel) {
  if (!obj.is_object())
    return nullptr;
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (config::key_matches(it.key(), camel))
      return &*it;
  return nullptr;
}

const ojson* find(const ojson& obj, std::string_view camel) {
  return find(const_cast<ojson&>(obj), camel);
}

ojson& member(ojson& obj, std::string_view camel) {
  if (auto* m = find(obj, camel))
    return *m;
  return obj[std::string{camel}];
}

void erase(ojson& obj, std::string_view camel) {
  if (!obj.is_object())
    return;
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (config::key_matches(it.key(), camel)) {
      obj.erase(it);
      return;
    }
}

std::variant<ojson*, config_error> section(ojson& obj, std::string_view camel,
                                           const std::string& at) {
  auto& m = member(obj, camel);
  if (m.is_null())
    m = ojson::object();
  if (!m.is_object())
    return config_error{at, "expected an object"};
  return &m;
}

std::variant<ojson, config_error> parse_root(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return ojson::object();
  auto root = ojson::parse(text.begin(), text.end(), nullptr, false);
  if (root.is_discarded())
    return config_error{"", "the config file is not valid JSON; fix it "
                            "before saving from the WebUI"};
  if (!root.is_object())
    return config_error{"", "the config file must hold a JSON object"};
  return root;
}

std::string dump(const ojson& root) {
  return root.dump(2) + "\n";
}

} // namespace nb::config_json
