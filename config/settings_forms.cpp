#include "config/settings_forms.hpp"

#include <cctype>

#include "config/json_edit.hpp"

namespace nb {

namespace {

using nlohmann::json;
using config_json::ojson;
using config_json::member;
using config_json::section;
namespace cj = config_json;

using edit_error = std::optional<config_error>;

bool has(const json& form, const char* key) {
  return form.contains(key) && !form[key].is_discarded();
}

std::string text_of(const json& form, const char* key) {
  return has(form, key) && form[key].is_string() ? form[key].get<std::string>()
                                                 : std::string{};
}

/// Walks (and creates) the objects along `path`, naming the first one that
/// is something else.
std::variant<ojson*, config_error>
walk(ojson& root, std::initializer_list<std::string_view> path) {
  ojson* at = &root;
  std::string where;
  for (auto part : path) {
    where += (where.empty() ? "" : ".") + std::string{part};
    auto next = section(*at, part, where);
    if (auto* e = std::get_if<config_error>(&next))
      return *e;
    at = std::get<ojson*>(next);
  }
  return at;
}

/// The member named exactly `name` (a user's own key: a channel or a
/// server), else one spelled the same loosely, else a new one.
ojson& named(ojson& obj, const std::string& name) {
  if (obj.contains(name))
    return obj[name];
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (cj::loose(it.key()) == cj::loose(name))
      return *it;
  return obj[name];
}

edit_error edit_model(ojson& root, const json& form) {
  auto d = walk(root, {"agents", "defaults"});
  if (auto* e = std::get_if<config_error>(&d))
    return *e;
  auto& defaults = *std::get<ojson*>(d);
  if (has(form, "model")) {
    if (text_of(form, "model").empty())
      return config_error{"agents.defaults.model", "must not be empty"};
    member(defaults, "model") = form["model"];
  }
  if (has(form, "provider")) {
    auto p = text_of(form, "provider");
    member(defaults, "provider") = p.empty() ? "auto" : p;
  }
  if (has(form, "fallback_models")) {
    const auto& f = form["fallback_models"];
    if (f.is_array() && f.empty())
      cj::erase(defaults, "fallbackModels");
    else
      member(defaults, "fallbackModels") = f; // the loader checks each entry
  }
  for (auto [field, key] : {std::pair{"max_tokens", "maxTokens"},
                            {"context_window_tokens", "contextWindowTokens"},
                            {"temperature", "temperature"}})
    if (has(form, field))
      member(defaults, key) = form[field];
  return std::nullopt;
}

edit_error edit_tools(ojson& root, const json& form) {
  auto t = walk(root, {"tools"});
  if (auto* e = std::get_if<config_error>(&t))
    return *e;
  auto& tools = *std::get<ojson*>(t);
  if (has(form, "restrict_to_workspace"))
    member(tools, "restrictToWorkspace") = form["restrict_to_workspace"];
  if (has(form, "ssrf_whitelist"))
    member(tools, "ssrfWhitelist") = form["ssrf_whitelist"];
  if (has(form, "exec_enable") || has(form, "exec_timeout")) {
    auto x = walk(tools, {"exec"});
    if (auto* e = std::get_if<config_error>(&x))
      return config_error{"tools.exec", e->reason};
    auto& exec = *std::get<ojson*>(x);
    if (has(form, "exec_enable"))
      member(exec, "enable") = form["exec_enable"];
    if (has(form, "exec_timeout"))
      member(exec, "timeout") = form["exec_timeout"];
  }
  if (has(form, "web_search_provider") || has(form, "web_search_api_key")
      || has(form, "web_search_base_url")) {
    auto w = walk(tools, {"web", "search"});
    if (auto* e = std::get_if<config_error>(&w))
      return config_error{"tools." + e->key_path, e->reason};
    auto& search = *std::get<ojson*>(w);
    if (has(form, "web_search_provider"))
      member(search, "provider") = form["web_search_provider"];
    if (!text_of(form, "web_search_api_key").empty())
      member(search, "apiKey") = form["web_search_api_key"];
    if (has(form, "web_search_base_url")) {
      if (text_of(form, "web_search_base_url").empty())
        cj::erase(search, "baseUrl");
      else
        member(search, "baseUrl") = form["web_search_base_url"];
    }
  }
  return std::nullopt;
}

edit_error edit_channel(ojson& root, const std::string& name, const json& form,
                        bool create) {
  auto at = "channels." + name;
  if (!config_json::valid_name(name))
    return config_error{"channels", "a channel name is 1-64 letters, digits, "
                                    "'_' or '-'"};
  auto c = walk(root, {"channels"});
  if (auto* e = std::get_if<config_error>(&c))
    return *e;
  auto& ch = named(*std::get<ojson*>(c), name);
  bool is_new = ch.is_null();
  if (create && !is_new)
    return config_error{at, "a channel of this name exists already"};
  if (create && text_of(form, "type").empty())
    return config_error{at + ".type", "missing (pick the channel's type)"};
  if (is_new)
    ch = ojson::object();
  if (!ch.is_object())
    return config_error{at, "expected an object"};
  if (is_new && !text_of(form, "type").empty() && text_of(form, "type") != name)
    member(ch, "type") = form["type"];
  if (has(form, "enabled"))
    member(ch, "enabled") = form["enabled"];
  if (has(form, "allow_from")) {
    if (form["allow_from"].is_null())
      cj::erase(ch, "allowFrom"); // pairing mode
    else
      member(ch, "allowFrom") = form["allow_from"];
  }
  if (has(form, "group_policy")) {
    if (text_of(form, "group_policy").empty()
        && form["group_policy"].is_string())
      cj::erase(ch, "groupPolicy");
    else
      member(ch, "groupPolicy") = form["group_policy"];
  }
  if (has(form, "group_allow_from"))
    member(ch, "groupAllowFrom") = form["group_allow_from"];
  if (has(form, "options")) { // the adapter's own keys, not secrets
    if (!form["options"].is_object())
      return config_error{at, "options: expected an object"};
    for (const auto& [key, value] : form["options"].items()) {
      if (!config_json::valid_name(key))
        return config_error{at, "\"" + key + "\" is not a key name"};
      if (secret_key(key))
        return config_error{at + "." + key, "a secret: give it with the "
                                            "secrets, never in plain view"};
      member(ch, key) = ojson::parse(value.dump());
    }
  }
  if (has(form, "secrets")) {
    if (!form["secrets"].is_object())
      return config_error{at, "secrets: expected an object of strings"};
    for (const auto& [key, value] : form["secrets"].items()) {
      if (!secret_key(key) || !config_json::valid_name(key))
        return config_error{at + "." + key, "not a secret's key (a token, "
                                            "secret, password or key)"};
      if (!value.is_string())
        return config_error{at + "." + key, "expected a string"};
      if (!value.get<std::string>().empty()) // empty keeps the saved one
        member(ch, key) = value;
    }
  }
  return std::nullopt;
}

/// env or headers: values from the form, an empty one keeping the saved
/// value of that name.
edit_error merge_secret_map(ojson& entry, const char* camel, const json& given,
                            const std::string& at) {
  if (!given.is_object())
    return config_error{at, "expected an object of strings"};
  ojson old = cj::find(entry, camel) ? *cj::find(entry, camel) : ojson{};
  ojson out = ojson::object();
  for (const auto& [key, value] : given.items()) {
    if (value.is_string() && value.get<std::string>().empty()
        && old.is_object() && old.contains(key))
      out[key] = old[key];
    else
      out[key] = value;
  }
  if (out.empty())
    cj::erase(entry, camel);
  else
    member(entry, camel) = out;
  return std::nullopt;
}

edit_error edit_mcp(ojson& root, const std::string& name, const json& form,
                    bool remove) {
  auto at = "tools.mcpServers." + name;
  if (!config_json::valid_name(name))
    return config_error{"tools.mcpServers", "a server name is 1-64 letters, "
                                            "digits, '_' or '-'"};
  auto s = walk(root, {"tools", "mcpServers"});
  if (auto* e = std::get_if<config_error>(&s))
    return *e;
  auto& servers = *std::get<ojson*>(s);
  if (remove) {
    if (!servers.contains(name))
      return config_error{at, "no such server"};
    servers.erase(name);
    return std::nullopt;
  }
  auto& entry = named(servers, name);
  if (entry.is_null())
    entry = ojson::object();
  if (!entry.is_object())
    return config_error{at, "expected an object"};
  auto type = text_of(form, "type");
  if (!type.empty())
    member(entry, "type") = type;
  for (auto [field, key] : {std::pair{"command", "command"}, {"url", "url"},
                            {"cwd", "cwd"}}) {
    if (!has(form, field))
      continue;
    if (form[field].is_string() && form[field].get<std::string>().empty())
      cj::erase(entry, key);
    else
      member(entry, key) = form[field];
  }
  if (has(form, "args"))
    member(entry, "args") = form["args"];
  if (has(form, "tool_timeout"))
    member(entry, "toolTimeout") = form["tool_timeout"];
  if (has(form, "env"))
    if (auto e = merge_secret_map(entry, "env", form["env"], at + ".env"))
      return e;
  if (has(form, "headers"))
    if (auto e = merge_secret_map(entry, "headers", form["headers"],
                                  at + ".headers"))
      return e;
  return std::nullopt;
}

/// The page never sees secret values: an entry that comes back with the
/// id of a saved one gets that entry's secrets again.
void keep_secrets(ojson& given, const ojson& before) {
  for (auto& entry : given) {
    auto* id = entry.is_object() ? cj::find(entry, "id") : nullptr;
    if (!id)
      continue;
    for (const auto& old : before) {
      auto* old_id = old.is_object() ? cj::find(old, "id") : nullptr;
      if (!old_id || *old_id != *id)
        continue;
      for (auto it = old.begin(); it != old.end(); ++it)
        if (secret_key(it.key()) && !entry.contains(it.key()))
          entry[it.key()] = *it;
    }
  }
}

edit_error edit_agents(ojson& root, const json& form) {
  auto a = walk(root, {"agents"});
  if (auto* e = std::get_if<config_error>(&a))
    return *e;
  auto& agents = *std::get<ojson*>(a);
  for (auto [field, key] : {std::pair{"list", "list"}, {"bindings", "bindings"}})
    if (has(form, field)) {
      if (!form[field].is_array())
        return config_error{std::string{"agents."} + key, "expected a list"};
      auto given = ojson::parse(form[field].dump());
      if (auto* before = cj::find(agents, key); before && before->is_array())
        keep_secrets(given, *before);
      member(agents, key) = std::move(given);
    }
  return std::nullopt;
}

} // namespace

bool secret_key(std::string_view key) {
  auto k = cj::loose(key);
  auto ends = [&](std::string_view tail) {
    return k.size() >= tail.size()
           && k.compare(k.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends("tokens")) // maxTokens, contextWindowTokens
    return false;
  for (std::string_view word : {"token", "secret", "password", "passwd",
                                "credential", "cookie", "authorization"})
    if (k.find(word) != std::string::npos)
      return true;
  return ends("key");
}

std::variant<settings_change, config_error>
apply_settings_form(std::string_view current, const settings_form& f,
                    const std::string& path, const env_lookup& env) {
  if (!f.form.is_object())
    return config_error{"", "expected a JSON object"};
  auto parsed = cj::parse_root(current);
  if (auto* e = std::get_if<config_error>(&parsed))
    return *e;
  auto root = std::move(std::get<ojson>(parsed));
  edit_error err;
  switch (f.page) {
    case settings_page::model: err = edit_model(root, f.form); break;
    case settings_page::tools: err = edit_tools(root, f.form); break;
    case settings_page::channel:
      err = edit_channel(root, f.name, f.form, false);
      break;
    case settings_page::channel_add:
      err = edit_channel(root, f.name, f.form, true);
      break;
    case settings_page::mcp: err = edit_mcp(root, f.name, f.form, false); break;
    case settings_page::mcp_remove:
      err = edit_mcp(root, f.name, f.form, true);
      break;
    case settings_page::agents: err = edit_agents(root, f.form); break;
  }
  if (err)
    return *err;
  settings_change out;
  out.text = cj::dump(root);
  auto loaded = parse_settings(out.text, path, env);
  if (auto* e = std::get_if<config_error>(&loaded))
    return *e;
  out.loaded = std::move(std::get<loaded_settings>(loaded));
  return out;
}

} // namespace nb
