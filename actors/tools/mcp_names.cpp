#include "actors/tools/mcp_names.hpp"

#include <algorithm>
#include <cctype>

#include <openssl/sha.h>

namespace nb {

namespace {

using nlohmann::json;

json resolve_refs(const json& node, const json& root, int depth) {
  if (depth > 32)
    return json::object(); // a recursive schema: stop, stay valid
  if (node.is_object()) {
    if (node.contains("$ref") && node["$ref"].is_string()) {
      auto ref = node["$ref"].get<std::string>();
      for (auto prefix : {"#/$defs/", "#/definitions/"}) {
        std::string p{prefix};
        if (ref.rfind(p, 0) != 0)
          continue;
        auto section = p.substr(2, p.size() - 3);
        auto name = ref.substr(p.size());
        if (root.contains(section) && root[section].contains(name))
          return resolve_refs(root[section][name], root, depth + 1);
      }
      return json::object();
    }
    json out = json::object();
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it.key() == "$defs" || it.key() == "definitions"
          || it.key() == "$schema")
        continue;
      out[it.key()] = resolve_refs(it.value(), root, depth + 1);
    }
    // anyOf/oneOf [X, {type: null}] -> X with "null" in its type list.
    for (auto key : {"anyOf", "oneOf"}) {
      if (!out.contains(key) || !out[key].is_array() || out[key].size() != 2)
        continue;
      auto& alts = out[key];
      int null_at = -1;
      for (int i = 0; i < 2; ++i)
        if (alts[i].is_object() && alts[i].value("type", json()) == "null")
          null_at = i;
      if (null_at < 0)
        continue;
      auto other = alts[1 - null_at];
      if (!other.is_object() || !other.contains("type")
          || !other["type"].is_string())
        continue;
      out.erase(key);
      for (auto it = other.begin(); it != other.end(); ++it)
        if (!out.contains(it.key()))
          out[it.key()] = it.value();
      out["type"] = json::array({other["type"], "null"});
    }
    return out;
  }
  if (node.is_array()) {
    json out = json::array();
    for (auto& x : node)
      out.push_back(resolve_refs(x, root, depth + 1));
    return out;
  }
  return node;
}

} // namespace

std::string mcp_tool_name(const std::string& server, const std::string& tool) {
  auto raw = "mcp_" + server + "_" + tool;
  std::string name;
  for (char c : raw) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_'
              || c == '-';
    char put = ok ? c : '_';
    if (put == '_' && !name.empty() && name.back() == '_')
      continue;
    name.push_back(put);
  }
  if (name.size() <= 64)
    return name;
  unsigned char digest[SHA_DIGEST_LENGTH];
  ::SHA1(reinterpret_cast<const unsigned char*>(raw.data()), raw.size(),
         digest);
  static const char* hex = "0123456789abcdef";
  std::string h;
  for (int i = 0; i < 4; ++i) {
    h.push_back(hex[digest[i] >> 4]);
    h.push_back(hex[digest[i] & 0xF]);
  }
  return name.substr(0, 55) + "_" + h;
}

json normalize_schema(const json& schema) {
  json out = schema.is_object() ? resolve_refs(schema, schema, 0)
                                : json::object();
  out["type"] = "object";
  if (!out.contains("properties") || !out["properties"].is_object())
    out["properties"] = json::object();
  if (out.contains("required") && !out["required"].is_array())
    out.erase("required");
  return out;
}

bool mcp_tool_enabled(const std::vector<std::string>& enabled,
                      const std::string& tool, const std::string& full_name) {
  return std::any_of(enabled.begin(), enabled.end(), [&](auto& e) {
    return e == "*" || e == tool || e == full_name;
  });
}

} // namespace nb
