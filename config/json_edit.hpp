// Editing the user's config.json as JSON: members found in either spelling
// (apiKey or api_key), key order and keys this gateway does not know kept.
// Shared by the WebUI's setup (provider_edit) and its settings pages
// (settings_forms).
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "config/load.hpp"

namespace nb::config_json {

using ojson = nlohmann::ordered_json;

/// A name the user may give a provider, channel, MCP server or agent:
/// 1-64 of A-Z, a-z, 0-9, '_' and '-'.
bool valid_name(std::string_view name);

/// "lmStudio", "lm-studio" and "lm_studio" are one name.
std::string loose(std::string_view s);

/// The member of `obj` spelled like `camel` in either case style; null when
/// there is none (or `obj` is not an object).
ojson* find(ojson& obj, std::string_view camel);
const ojson* find(const ojson& obj, std::string_view camel);

/// The member spelled like `camel`, else a new member named `camel`.
ojson& member(ojson& obj, std::string_view camel);

/// Removes the member spelled like `camel`, if any.
void erase(ojson& obj, std::string_view camel);

/// `obj.<camel>` as an object (created when missing or null); the error
/// names `at` when something else is in the way.
std::variant<ojson*, config_error> section(ojson& obj, std::string_view camel,
                                           const std::string& at);

/// The file's text as an object ("" = a new, empty config); errors when it
/// is not a JSON object.
std::variant<ojson, config_error> parse_root(std::string_view text);

/// The text written back: two-space indent, a final newline.
std::string dump(const ojson& root);

} // namespace nb::config_json
