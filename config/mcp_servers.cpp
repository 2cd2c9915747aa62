// tools.mcpServers: user-named MCP servers, each with nested lists and
// maps; read by hand after the key-table walk (which marks the key known).
#include "config/keys.hpp"
#include "config/pipeline.hpp"

namespace nb::config {

namespace {

using nlohmann::json;

const json* child(const json& obj, std::string_view camel) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (key_matches(it.key(), camel))
      return &it.value();
  return nullptr;
}

struct mcp_reader {
  const env_lookup& env;
  std::optional<config_error> err;

  std::string text(const json& v, const std::string& at) {
    if (!v.is_string()) {
      err = config_error{at, "expected a string, found " + type_name(v)};
      return {};
    }
    auto r = interpolate(v.get<std::string>(), env);
    if (!r.missing.empty())
      err = config_error{at, "environment variable " + r.missing[0]
                               + " is not set (referenced as ${"
                               + r.missing[0] + "})"};
    return r.text;
  }

  std::vector<std::string> list(const json& v, const std::string& at) {
    std::vector<std::string> out;
    if (!v.is_array()) {
      err = config_error{at, "expected a list of strings, found "
                               + type_name(v)};
      return out;
    }
    for (size_t i = 0; i < v.size() && !err; ++i)
      out.push_back(text(v[i], at + "[" + std::to_string(i) + "]"));
    return out;
  }

  std::map<std::string, std::string> map(const json& v,
                                         const std::string& at) {
    std::map<std::string, std::string> out;
    if (!v.is_object()) {
      err = config_error{at, "expected an object of strings, found "
                               + type_name(v)};
      return out;
    }
    for (auto it = v.begin(); it != v.end() && !err; ++it)
      out[it.key()] = text(it.value(), at + "." + display_key(it.key()));
    return out;
  }
};

} // namespace

std::optional<config_error> read_mcp_servers(const json& root, settings& out,
                                             const env_lookup& env) {
  auto* tools = child(root, "tools");
  if (!tools || !tools->is_object())
    return std::nullopt;
  auto* servers = child(*tools, "mcpServers");
  if (!servers || servers->is_null())
    return std::nullopt;
  if (!servers->is_object())
    return config_error{"tools.mcpServers",
                        "expected an object, found " + type_name(*servers)};
  mcp_reader r{env, std::nullopt};
  for (auto it = servers->begin(); it != servers->end(); ++it) {
    auto base = "tools.mcpServers." + display_key(it.key());
    if (!it->is_object())
      return config_error{base, "expected an object, found "
                                  + type_name(*it)};
    mcp_server_settings s;
    auto& o = *it;
    if (auto* v = child(o, "type"); v && !v->is_null())
      s.type = r.text(*v, base + ".type");
    if (auto* v = child(o, "command"); v && !v->is_null())
      s.command = r.text(*v, base + ".command");
    if (auto* v = child(o, "args"); v && !v->is_null())
      s.args = r.list(*v, base + ".args");
    if (auto* v = child(o, "env"); v && !v->is_null())
      s.env = r.map(*v, base + ".env");
    if (auto* v = child(o, "cwd"); v && !v->is_null())
      s.cwd = r.text(*v, base + ".cwd");
    if (auto* v = child(o, "url"); v && !v->is_null())
      s.url = r.text(*v, base + ".url");
    if (auto* v = child(o, "headers"); v && !v->is_null())
      s.headers = r.map(*v, base + ".headers");
    if (auto* v = child(o, "enabledTools"); v && !v->is_null())
      s.enabled_tools = r.list(*v, base + ".enabledTools");
    if (auto* v = child(o, "toolTimeout"); v && !v->is_null()) {
      if (!v->is_number() || v->get<double>() < 1 || v->get<double>() > 3600)
        return config_error{base + ".toolTimeout",
                            "expected a number of seconds from 1 to 3600"};
      s.tool_timeout_s = static_cast<int32_t>(v->get<double>() + 0.999);
    }
    if (r.err)
      return r.err;
    if (s.type.empty())
      s.type = !s.command.empty()                       ? "stdio"
               : s.url.size() >= 4
                     && s.url.compare(s.url.size() - 4, 4, "/sse") == 0
                 ? "sse"
                 : "streamableHttp";
    if (s.type != "stdio" && s.type != "sse" && s.type != "streamableHttp")
      return config_error{base + ".type",
                          "must be stdio, sse or streamableHttp"};
    if (s.type == "stdio" && s.command.empty())
      return config_error{base + ".command", "missing (a stdio server needs "
                                             "a command)"};
    if (s.type != "stdio" && s.url.empty())
      return config_error{base + ".url", "missing (an HTTP server needs a "
                                         "url)"};
    out.tools.mcp_servers[it.key()] = std::move(s);
  }
  return std::nullopt;
}

} // namespace nb::config
