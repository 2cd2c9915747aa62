#include "actors/tools/cli_catalog.hpp"

#include <algorithm>
#include <cstdlib>

#include "actors/common/clock.hpp"
#include "actors/common/strings.hpp"
#include "actors/tools/file_io.hpp"
#include "actors/tools/http_fetch.hpp"

namespace nb {

namespace {

using nlohmann::json;

// A registry is a few hundred rows; a cache far larger is not one.
constexpr uint64_t catalog_cache_max_bytes = 32 * 1024 * 1024;
constexpr size_t catalog_body_max_bytes = 32 * 1024 * 1024;
constexpr int catalog_fetch_timeout_s = 15; // the original's httpx timeout

struct cached_registry {
  json data; ///< null when there is no usable cache
  double cached_at = 0;
};

std::string catalog_cache_path(const std::string& config_dir,
                               const std::string& source) {
  return config_dir + "/cli-apps/" + source + "_registry_cache.json";
}

cached_registry read_catalog_cache(const std::string& path) {
  cached_registry out;
  auto f = read_regular_file(path, catalog_cache_max_bytes);
  if (f.status != read_status::ok)
    return out;
  auto doc = json::parse(f.data, nullptr, false);
  if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_object())
    return out;
  out.data = std::move(doc["data"]);
  if (doc.contains("_cached_at") && doc["_cached_at"].is_number())
    out.cached_at = doc["_cached_at"].get<double>();
  return out;
}

double catalog_now() {
  return static_cast<double>(unix_ms()) / 1000.0;
}

/// One registry as the original's _fetch_registry gets it: the cache while
/// fresh, else the network, else the stale cache; null with `error` when
/// there is nothing.
json registry_for(const std::string& config_dir, const cli_catalog_source& src,
                  int ttl_s, catalog_mode mode, std::string& error) {
  auto path = catalog_cache_path(config_dir, src.name);
  auto cached = read_catalog_cache(path);
  if (mode == catalog_mode::cached)
    return cached.data; // none: left out, as the original's cache_only
  if (mode == catalog_mode::fresh && !cached.data.is_null()
      && catalog_now() - cached.cached_at < ttl_s)
    return cached.data;
  std::string why;
  auto body = cli_http_get(src.url, why);
  json fetched;
  if (why.empty()) {
    fetched = json::parse(body, nullptr, false);
    if (!fetched.is_object())
      why = "registry response must be an object";
  }
  if (!why.empty()) {
    if (cached.data.is_null())
      error = "the " + src.name + " registry (" + src.url + "): " + why;
    return cached.data;
  }
  json doc = {{"_cached_at", catalog_now()}, {"data", fetched}};
  write_file_atomic(path, doc.dump(2, ' ', false,
                                   json::error_handler_t::replace));
  return fetched;
}

} // namespace

std::vector<cli_catalog_source> cli_catalog_sources() {
  if (const char* base = std::getenv("NANOBOT_CLI_APPS_REGISTRY");
      base && *base) {
    std::string b = base;
    while (!b.empty() && b.back() == '/')
      b.pop_back();
    return {{"harness", b + "/registry.json", b, true},
            {"public", b + "/public_registry.json", b, true},
            {"extensions", b + "/extensions/registry.json", b + "/extensions",
             false}};
  }
  const std::string cli_anything = "https://hkuds.github.io/CLI-Anything";
  const std::string cli_anything_raw =
    "https://raw.githubusercontent.com/HKUDS/CLI-Anything/main";
  const std::string extension_raw =
    "https://raw.githubusercontent.com/Re-bin/nanobot-extension/main";
  return {{"harness", cli_anything + "/registry.json", cli_anything_raw, true},
          {"public", cli_anything + "/public_registry.json", cli_anything_raw,
           true},
          {"extensions", extension_raw + "/registry.json", extension_raw,
           false}};
}

cli_catalog load_cli_catalog(const std::string& config_dir, int ttl_s,
                             catalog_mode mode) {
  cli_catalog out;
  if (config_dir.empty()) {
    out.error = "no config directory to keep the CLI apps catalog in";
    return out;
  }
  std::vector<std::pair<std::string, json>> index; // lower name -> row
  for (auto& src : cli_catalog_sources()) {
    std::string error;
    auto registry = registry_for(config_dir, src, ttl_s, mode, error);
    if (registry.is_null()) {
      if (src.required && out.error.empty() && !error.empty())
        out.error = error;
      continue;
    }
    if (registry.contains("meta") && registry["meta"].is_object()) {
      auto updated = cli_field(registry["meta"], "updated");
      if (updated > out.updated)
        out.updated = updated;
    }
    if (!registry.contains("clis") || !registry["clis"].is_array())
      continue;
    for (auto& row : registry["clis"]) {
      if (!row.is_object() || cli_field(row, "name").empty())
        continue;
      json entry = row;
      entry["_source"] = src.name;
      entry["_raw_base"] = src.raw_base;
      auto key = ascii_lower(cli_field(row, "name"));
      auto it = std::find_if(index.begin(), index.end(),
                             [&](auto& p) { return p.first == key; });
      if (it == index.end()) {
        index.emplace_back(key, std::move(entry));
        continue;
      }
      auto before = cli_field(it->second, "_source");
      json merged = it->second;
      merged.update(entry);
      merged["_source"] = before == src.name ? before : before + "+" + src.name;
      it->second = std::move(merged);
    }
  }
  if (!out.error.empty())
    return out; // as the original: a missing required registry fails it
  for (auto& [key, row] : index)
    out.apps.push_back(std::move(row));
  return out;
}

const json* find_cli_app(const cli_catalog& catalog, const std::string& name) {
  auto wanted = ascii_lower(name);
  for (auto& app : catalog.apps)
    if (ascii_lower(cli_field(app, "name")) == wanted)
      return &app;
  return nullptr;
}

bool cli_catalog_fresh(const std::string& config_dir, int ttl_s,
                       bool include_optional) {
  for (auto& src : cli_catalog_sources()) {
    if (!src.required && !include_optional)
      continue;
    auto cached = read_catalog_cache(catalog_cache_path(config_dir, src.name));
    if (cached.data.is_null() || catalog_now() - cached.cached_at >= ttl_s)
      return false;
  }
  return true;
}

std::string cli_http_get(const std::string& url, std::string& error) {
  http_request req;
  req.url = url;
  req.timeout_s = catalog_fetch_timeout_s;
  req.read_timeout_s = catalog_fetch_timeout_s;
  req.max_bytes = catalog_body_max_bytes;
  auto r = http_send(req, make_ssrf_policy({"0.0.0.0/0", "::/0"}));
  if (!r.error.empty()) {
    error = r.error;
    return {};
  }
  if (r.status < 200 || r.status >= 300) {
    error = "HTTP " + std::to_string(r.status);
    return {};
  }
  if (r.truncated) {
    error = "the answer is larger than "
            + std::to_string(catalog_body_max_bytes) + " bytes";
    return {};
  }
  return std::move(r.body);
}

std::string cli_field(const nlohmann::json& row, const char* key) {
  if (!row.is_object() || !row.contains(key))
    return {};
  auto& v = row[key];
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_number() || v.is_boolean())
    return v.dump();
  return {};
}

std::string cli_display_name(const nlohmann::json& row) {
  auto d = cli_field(row, "display_name");
  return d.empty() ? cli_field(row, "name") : d;
}

} // namespace nb
