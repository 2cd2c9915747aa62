// The WebUI's settings pages as config edits (issue 20, part 2): one form
// applied to the user's config.json text, then read back by the loader, so
// a change is checked exactly as a restart would check it and an error names
// the key path. Pure: text and JSON in, text (or the error) out.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "config/load.hpp"

namespace nb {

/// Which page a form comes from; `name` is the channel or MCP server.
enum class settings_page {
  model,
  tools,
  channel,
  channel_add,
  mcp,
  mcp_remove,
  agents
};

/// Forms (JSON objects from the page; a missing field leaves its key as it
/// is, an empty secret keeps the saved one):
///   model    {model, provider, fallback_models: [preset name | {model,
///             provider}]}                 -> agents.defaults.*
///   tools    {exec_enable, exec_timeout, restrict_to_workspace,
///             ssrf_whitelist: [CIDR], web_search_provider,
///             web_search_api_key, web_search_base_url}
///   channel  {enabled, allow_from: [ids] | null (= pairing),
///             group_policy, group_allow_from: [ids],
///             secrets: {key: value},     -> channels.<name>
///             options: {key: value}}     (the adapter's other keys)
///   channel_add  the same plus {type}: a channel not in the file yet
///   mcp      {type, command, args, url, env: {}, headers: {},
///             tool_timeout}                -> tools.mcpServers.<name>
///             (env and header values: empty keeps the saved one)
///   agents   {list: [...], bindings: [...]} -> agents.list, .bindings
struct settings_form {
  settings_page page = settings_page::model;
  std::string name;
  nlohmann::json form = nlohmann::json::object();
};

/// The config with a form applied and the loader's reading of it.
struct settings_change {
  std::string text;
  loaded_settings loaded;
};

/// Applies `f` to `current` (the file's text; "" = no file yet) and loads
/// the result as load_settings would (`path` only names the file in
/// errors). Unknown keys of the user's file stay where they are.
std::variant<settings_change, config_error>
apply_settings_form(std::string_view current, const settings_form& f,
                    const std::string& path,
                    const env_lookup& env = system_env());

/// Whether a config key holds a secret (token, secret, password, *key):
/// such values never go back to the browser.
bool secret_key(std::string_view key);

/// The settings pages' view of a config, secrets left out (their keys are
/// listed as set): {model, providers, presets, tools, mcp_servers,
/// channels, agents, bindings}. `raw` is the file's JSON (the user's
/// spelling), `s` what the loader made of it.
nlohmann::json settings_view(const nlohmann::ordered_json& raw,
                             const settings& s);

} // namespace nb
