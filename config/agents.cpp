// agents.list and agents.bindings: several agents in one gateway. Lists of
// objects, so they are read by hand after the key-table walk (which marks
// the keys as known); every entry is checked here and an error names the
// key path ("agents.list[1].id").
#include <algorithm>
#include <filesystem>
#include <set>

#include "config/keys.hpp"
#include "config/model_list.hpp"
#include "config/pipeline.hpp"
#include "config/section_reader.hpp"

namespace nb::config {

namespace {

using nlohmann::json;

bool valid_agent_id(const std::string& id) {
  if (id.empty() || id.size() > 32)
    return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'
           || c == '-';
  });
}

std::string join(const std::vector<std::string>& xs) {
  std::string out;
  for (const auto& x : xs)
    out += (out.empty() ? "" : ", ") + x;
  return out;
}

/// Reads typed values of one entry; the first problem is kept in `err`.
struct agent_reader {
  const env_lookup& env;
  std::optional<config_error> err;

  bool failed() const { return err.has_value(); }

  void fail(const std::string& at, std::string reason) {
    if (!err)
      err = config_error{at, std::move(reason)};
  }

  std::string text(const json& v, const std::string& at, bool non_empty) {
    if (!v.is_string()) {
      fail(at, "expected a string, found " + type_name(v));
      return {};
    }
    auto r = interpolate(v.get<std::string>(), env);
    if (!r.missing.empty())
      fail(at, "environment variable " + r.missing[0]
                 + " is not set (referenced as ${" + r.missing[0] + "})");
    else if (non_empty && r.text.empty())
      fail(at, "must not be empty");
    return r.text;
  }

  std::vector<std::string> list(const json& v, const std::string& at) {
    std::vector<std::string> out;
    if (!v.is_array()) {
      fail(at, "expected a list of strings, found " + type_name(v));
      return out;
    }
    for (size_t i = 0; i < v.size() && !failed(); ++i)
      out.push_back(text(v[i], at + "[" + std::to_string(i) + "]", true));
    return out;
  }

  int32_t integer(const json& v, const std::string& at, int64_t lo,
                  int64_t hi) {
    if (!v.is_number_integer()) {
      fail(at, "expected an integer, found " + type_name(v));
      return 0;
    }
    auto n = v.get<int64_t>();
    if (n < lo || n > hi) {
      fail(at, "must be between " + std::to_string(lo) + " and "
                 + std::to_string(hi));
      return 0;
    }
    return static_cast<int32_t>(n);
  }

  double number(const json& v, const std::string& at, double lo, double hi) {
    if (!v.is_number()) {
      fail(at, "expected a number, found " + type_name(v));
      return 0;
    }
    auto n = v.get<double>();
    if (n < lo || n > hi)
      fail(at, "must be between " + std::to_string(static_cast<int>(lo))
                 + " and " + std::to_string(static_cast<int>(hi)));
    return n;
  }

  bool flag(const json& v, const std::string& at) {
    if (!v.is_boolean()) {
      fail(at, "expected true or false, found " + type_name(v));
      return false;
    }
    return v.get<bool>();
  }

  /// Warns about keys of `obj` that are not in `known`.
  void unknown_keys(const json& obj, const std::string& at,
                    const std::vector<std::string_view>& known,
                    diagnostics& diag) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool ok = std::any_of(known.begin(), known.end(), [&](auto k) {
        return key_matches(it.key(), k);
      });
      if (!ok)
        diag.warnings.push_back("unknown config key " + at + "."
                                + display_key(it.key()) + "; ignored");
    }
  }
};

const std::vector<std::string_view> agent_keys
  = {"id",          "name",        "workspace",           "model",
     "provider",    "modelPreset", "maxTokens",           "temperature",
     "contextWindowTokens",        "maxToolIterations",   "tools",
     "skills",      "mcpServers",  "heartbeat",           "timezone",
     "canMessage"};

const std::vector<std::string_view> binding_keys
  = {"agent", "channel", "instance", "chatId", "senderId", "group"};

/// An agent's workspace when the entry names none: "workspace-<id>" beside
/// the defaults' workspace (sharing that one would be an error).
std::string default_workspace(const settings& s, const std::string& id) {
  auto base = std::filesystem::path{s.workspace_path()};
  return (base.parent_path() / ("workspace-" + id)).string();
}

/// Applies a modelPresets name to one agent's model fields.
std::optional<config_error> apply_preset(const settings& s,
                                         agent_settings& a,
                                         const std::string& at) {
  if (a.model_preset.empty() || a.model_preset == "default")
    return std::nullopt;
  auto p = s.model_presets.find(a.model_preset);
  if (p == s.model_presets.end()) {
    std::vector<std::string> names;
    for (const auto& [name, preset] : s.model_presets)
      names.push_back(name);
    return config_error{at, "unknown preset \"" + a.model_preset
                              + "\" (modelPresets has: "
                              + (names.empty() ? "none" : join(names)) + ")"};
  }
  a.model = p->second.model;
  a.provider = p->second.provider;
  a.max_tokens = p->second.max_tokens;
  a.context_window_tokens = p->second.context_window_tokens;
  a.temperature = p->second.temperature;
  return std::nullopt;
}

std::optional<config_error> read_agent(const json& o, const std::string& at,
                                       const settings& s, agent_reader& r,
                                       diagnostics& diag, agent_profile& a) {
  if (!o.is_object())
    return config_error{at, "expected an object, found " + type_name(o)};
  r.unknown_keys(o, at, agent_keys, diag);
  auto* id = field(o, "id");
  if (id == nullptr || id->is_null())
    return config_error{at + ".id", "missing (every agent needs an id)"};
  a.id = r.text(*id, at + ".id", true);
  if (r.failed())
    return r.err;
  if (!valid_agent_id(a.id))
    return config_error{at + ".id", "must be 1 to 32 of a-z, 0-9, '_' and "
                                    "'-'"};
  if (a.id == main_agent)
    return config_error{at + ".id", "\"main\" is the implicit agent "
                                    "(agents.defaults); configure it there"};
  // Unset fields come from agents.defaults, but not its model preset when
  // the entry sets a model of its own.
  a.agent = s.agent;
  a.agent.model_preset.clear();
  a.heartbeat = s.gateway.heartbeat;
  a.agent.workspace = default_workspace(s, a.id);
  auto get = [&](std::string_view key) -> const json* {
    auto* v = field(o, key);
    return v != nullptr && !v->is_null() ? v : nullptr;
  };
  if (auto* v = get("name"))
    a.name = r.text(*v, at + ".name", false);
  if (auto* v = get("workspace"))
    a.agent.workspace = r.text(*v, at + ".workspace", true);
  if (auto* v = get("model"))
    a.agent.model = r.text(*v, at + ".model", true);
  if (auto* v = get("provider"))
    a.agent.provider = r.text(*v, at + ".provider", true);
  if (auto* v = get("modelPreset"))
    a.agent.model_preset = r.text(*v, at + ".modelPreset", false);
  if (auto err = apply_preset(s, a.agent, at + ".modelPreset"))
    return err;
  if (auto* v = get("maxTokens"))
    a.agent.max_tokens = r.integer(*v, at + ".maxTokens", 1, 2147483647);
  if (auto* v = get("temperature"))
    a.agent.temperature = r.number(*v, at + ".temperature", 0, 2);
  if (auto* v = get("contextWindowTokens"))
    a.agent.context_window_tokens
      = r.integer(*v, at + ".contextWindowTokens", 1, 2147483647);
  if (auto* v = get("maxToolIterations"))
    a.agent.max_tool_iterations
      = r.integer(*v, at + ".maxToolIterations", 1, 100000);
  if (auto* v = get("timezone"))
    a.agent.timezone = r.text(*v, at + ".timezone", false);
  if (auto* v = get("tools")) {
    if (!v->is_object())
      return config_error{at + ".tools",
                          "expected an object, found " + type_name(*v)};
    r.unknown_keys(*v, at + ".tools", {"allow", "deny"}, diag);
    if (auto* l = field(*v, "allow"); l && !l->is_null())
      a.tools_allow = r.list(*l, at + ".tools.allow");
    if (auto* l = field(*v, "deny"); l && !l->is_null())
      a.tools_deny = r.list(*l, at + ".tools.deny");
  }
  if (auto* v = get("skills")) {
    a.skills = r.list(*v, at + ".skills");
    a.skills_set = true;
  }
  if (auto* v = get("mcpServers")) {
    a.mcp_servers = r.list(*v, at + ".mcpServers");
    a.mcp_servers_set = true;
    for (size_t i = 0; i < a.mcp_servers.size() && !r.failed(); ++i)
      if (!s.tools.mcp_servers.count(a.mcp_servers[i]))
        r.fail(at + ".mcpServers[" + std::to_string(i) + "]",
               "no MCP server \"" + a.mcp_servers[i]
                 + "\" in tools.mcpServers");
  }
  if (auto* v = get("heartbeat")) {
    if (!v->is_object())
      return config_error{at + ".heartbeat",
                          "expected an object, found " + type_name(*v)};
    r.unknown_keys(*v, at + ".heartbeat", {"enabled", "intervalS"}, diag);
    a.heartbeat_set = true;
    if (auto* f = field(*v, "enabled"); f && !f->is_null())
      a.heartbeat.enabled = r.flag(*f, at + ".heartbeat.enabled");
    if (auto* f = field(*v, "intervalS"); f && !f->is_null())
      a.heartbeat.interval_s
        = r.integer(*f, at + ".heartbeat.intervalS", 1, 2147483647);
  }
  if (auto* v = get("canMessage"))
    a.can_message = r.list(*v, at + ".canMessage");
  return r.err;
}

std::optional<config_error> read_binding(const json& o, const std::string& at,
                                         agent_reader& r, diagnostics& diag,
                                         agent_binding& b) {
  if (!o.is_object())
    return config_error{at, "expected an object, found " + type_name(o)};
  r.unknown_keys(o, at, binding_keys, diag);
  auto req = [&](std::string_view key, std::string& out) {
    auto* v = field(o, key);
    if (v == nullptr || v->is_null())
      r.fail(at + "." + std::string{key}, "missing");
    else
      out = r.text(*v, at + "." + std::string{key}, true);
  };
  auto opt = [&](std::string_view key, std::string& out) {
    if (auto* v = field(o, key); v && !v->is_null()) {
      if (v->is_number_integer()) // chat ids are often numbers
        out = std::to_string(v->get<int64_t>());
      else
        out = r.text(*v, at + "." + std::string{key}, true);
    }
  };
  req("agent", b.agent);
  req("channel", b.channel);
  opt("instance", b.instance);
  opt("chatId", b.chat_id);
  opt("senderId", b.sender_id);
  if (auto* v = field(o, "group"); v && !v->is_null())
    b.group = r.flag(*v, at + ".group") ? 1 : 0;
  return r.err;
}

/// Two agents on one folder (or one inside another) could read each
/// other's files: an error naming the later entry.
std::optional<config_error> check_workspaces(const settings& s) {
  struct place {
    std::string path, at;
  };
  std::vector<place> seen{{s.workspace_path(), "agents.defaults.workspace"}};
  auto inside = [](const std::string& a, const std::string& b) {
    return a == b || (a.size() > b.size() && a.compare(0, b.size(), b) == 0
                      && a[b.size()] == '/');
  };
  for (size_t i = 0; i < s.agents.size(); ++i) {
    auto path = s.for_agent(s.agents[i].id).workspace_path();
    auto at = "agents.list[" + std::to_string(i) + "].workspace";
    for (const auto& p : seen) {
      if (path == p.path)
        return config_error{at, "the same workspace as " + p.at
                                  + " (every agent needs its own)"};
      if (inside(path, p.path) || inside(p.path, path))
        return config_error{at, "nested with the workspace of " + p.at
                                  + " (agents must not see each other's "
                                    "files)"};
    }
    seen.push_back({path, at});
  }
  return std::nullopt;
}

} // namespace

std::optional<config_error> read_agents(const json& root, settings& out,
                                        const env_lookup& env,
                                        diagnostics& diag) {
  auto* agents = field(root, "agents");
  if (agents == nullptr || !agents->is_object())
    return std::nullopt;
  agent_reader r{env, std::nullopt};
  if (auto* list = field(*agents, "list"); list && !list->is_null()) {
    if (!list->is_array())
      return config_error{"agents.list",
                          "expected a list of agents, found "
                            + type_name(*list)};
    std::set<std::string> ids;
    for (size_t i = 0; i < list->size(); ++i) {
      auto at = "agents.list[" + std::to_string(i) + "]";
      agent_profile a;
      if (auto err = read_agent((*list)[i], at, out, r, diag, a))
        return err;
      if (!ids.insert(a.id).second)
        return config_error{at + ".id", "duplicate agent id \"" + a.id + "\""};
      out.agents.push_back(std::move(a));
    }
  }
  auto known = out.agent_ids();
  auto unknown = [&](const std::string& id) {
    return std::find(known.begin(), known.end(), id) == known.end();
  };
  for (size_t i = 0; i < out.agents.size(); ++i) {
    const auto& targets = out.agents[i].can_message;
    for (size_t j = 0; j < targets.size(); ++j)
      if (unknown(targets[j]))
        return config_error{"agents.list[" + std::to_string(i)
                              + "].canMessage[" + std::to_string(j) + "]",
                            "unknown agent \"" + targets[j]
                              + "\" (agents: " + join(known) + ")"};
  }
  if (auto* list = field(*agents, "bindings"); list && !list->is_null()) {
    if (!list->is_array())
      return config_error{"agents.bindings",
                          "expected a list of bindings, found "
                            + type_name(*list)};
    for (size_t i = 0; i < list->size(); ++i) {
      auto at = "agents.bindings[" + std::to_string(i) + "]";
      agent_binding b;
      if (auto err = read_binding((*list)[i], at, r, diag, b))
        return err;
      if (unknown(b.agent))
        return config_error{at + ".agent", "unknown agent \"" + b.agent
                                             + "\" (agents: " + join(known)
                                             + ")"};
      out.bindings.push_back(std::move(b));
    }
  }
  return check_workspaces(out);
}

} // namespace nb::config
