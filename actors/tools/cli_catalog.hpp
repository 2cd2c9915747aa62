// Tools: the catalog of CLI apps as the original keeps it. Three registries
// (CLI-Anything's harness and public lists, required; the nanobot-extension
// list, optional), each cached beside installed.json as
// <config dir>/cli-apps/<source>_registry_cache.json ({"_cached_at": unix
// seconds, "data": the registry}) and fetched again once older than
// tools.cliApps.catalogTtlSeconds; a failed fetch falls back to the stale
// cache. Entries are merged by name, any case, later sources filling in.
// Blocking (files and HTTP): tool workers and the WebUI's API thread only.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb {

/// One registry.
struct cli_catalog_source {
  std::string name;     ///< "harness", "public", "extensions"
  std::string url;      ///< the registry JSON
  std::string raw_base; ///< where its skill_md paths are found
  bool required = true; ///< a failure fails the whole catalog
};

/// The original's three registries; with NANOBOT_CLI_APPS_REGISTRY set to
/// a base URL B (a mirror, or a test's server): B/registry.json,
/// B/public_registry.json and B/extensions/registry.json, raw bases B and
/// B/extensions.
std::vector<cli_catalog_source> cli_catalog_sources();

/// The merged catalog.
struct cli_catalog {
  /// The registry rows ("name", "display_name", "entry_point", ...) with
  /// "_source" ("harness", "public+extensions", ...) and "_raw_base".
  std::vector<nlohmann::json> apps;
  std::string updated; ///< the latest meta.updated, "" when none
  /// Why a required registry could not be had, not fetched nor cached
  /// ("" = the catalog is complete).
  std::string error;
};

/// How to load it.
enum class catalog_mode {
  cached,  ///< the caches only, however old
  fresh,   ///< a cache older than the TTL (or none) is fetched again
  refetch, ///< every registry fetched again (a cache only on failure)
};

/// The catalog below `config_dir` ("": none, with an error).
cli_catalog load_cli_catalog(const std::string& config_dir, int ttl_s,
                             catalog_mode mode);

/// The row named `name` (any case), or null.
const nlohmann::json* find_cli_app(const cli_catalog& catalog,
                                   const std::string& name);

/// Whether every registry's cache (the optional one too when
/// `include_optional`) is younger than `ttl_s`.
bool cli_catalog_fresh(const std::string& config_dir, int ttl_s,
                       bool include_optional);

/// GETs `url` (redirects followed, 15 s): the body, or "" with `error`
/// set. The registries are the operator's choice, not the agent's, so
/// the SSRF guard lets every address through.
std::string cli_http_get(const std::string& url, std::string& error);

/// A string field of a catalog or installed.json row ("" when absent or not
/// a string).
std::string cli_field(const nlohmann::json& row, const char* key);

/// A row's display_name, else its name.
std::string cli_display_name(const nlohmann::json& row);

} // namespace nb
