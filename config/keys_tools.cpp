// The config key table's tools.* part (REFERENCE §16): the file, shell,
// web, MCP, browser and session tools' keys.
#include "config/key_builders.hpp"

namespace nb::config::key_builders {

std::vector<key_spec> tools_keys() {
  return {
    section("tools"),
    leaf("tools.restrictToWorkspace", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.tools.restrict_to_workspace = v.flag;
         }),
    section("tools.exec"),
    leaf("tools.exec.enable", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) { s.tools.exec.enable = v.flag; }),
    leaf("tools.exec.timeout", k::seconds, 0, i32_max,
         [](settings& s, name_t, val_t v) { s.tools.exec.timeout_s = i32(v); }),
    leaf("tools.exec.denyPatterns", k::string_list, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.tools.exec.deny_patterns = v.list;
         }),
    text(
      "tools.exec.pathAppend", false,
      [](settings& s, name_t, val_t v) { s.tools.exec.path_append = v.text; }),
    ignored("tools.exec.pathPrepend"),
    text("tools.exec.sandbox", false,
         [](settings& s, name_t, val_t v) { s.tools.exec.sandbox = v.text; }),
    leaf("tools.exec.sandboxRoBinds", k::string_list, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.tools.exec.sandbox_ro_binds = v.list;
         }),
    leaf("tools.exec.sandboxRwBinds", k::string_list, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.tools.exec.sandbox_rw_binds = v.list;
         }),
    text("tools.exec.network", true,
         [](settings& s, name_t, val_t v) { s.tools.exec.network = v.text; }),
    leaf("tools.exec.allowedEnvKeys", k::string_list, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.tools.exec.allowed_env_keys = v.list;
         }),
    leaf("tools.exec.allowPatterns", k::string_list, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.tools.exec.allow_patterns = v.list;
         }),
    leaf("tools.exec.maxProcesses", k::integer, 0, 1000000,
         [](settings& s, name_t, val_t v) {
           s.tools.exec.max_processes = i32(v);
         }),
    leaf("tools.exec.maxMemoryMb", k::integer, 0, 1048576,
         [](settings& s, name_t, val_t v) {
           s.tools.exec.max_memory_mb = i32(v);
         }),
    leaf("tools.exec.maxCpuSeconds", k::seconds, 0, 1000000,
         [](settings& s, name_t, val_t v) { s.tools.exec.max_cpu_s = i32(v); }),
    // The background sessions' limits: constants in the original, keys
    // here (the original ignores keys it does not know).
    leaf(
      "tools.exec.maxSessions", k::integer, 1, 1000,
      [](settings& s, name_t, val_t v) { s.tools.exec.max_sessions = i32(v); }),
    leaf("tools.exec.sessionIdleTimeout", k::seconds, 1, 604800,
         [](settings& s, name_t, val_t v) {
           s.tools.exec.session_idle_timeout_s = i32(v);
         }),
    leaf("tools.exec.sessionBufferChars", k::integer, 1000, 16777216,
         [](settings& s, name_t, val_t v) {
           s.tools.exec.session_buffer_chars = i32(v);
         }),
    section("tools.web"),
    leaf("tools.web.enable", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) { s.tools.web.enable = v.flag; }),
    text("tools.web.userAgent", false,
         [](settings& s, name_t, val_t v) { s.tools.web.user_agent = v.text; }),
    text("tools.web.proxy", false,
         [](settings& s, name_t, val_t v) { s.tools.web.proxy = v.text; }),
    ignored("tools.web.fetch"),
    section("tools.web.search"),
    text("tools.web.search.provider", true,
         [](settings& s, name_t, val_t v) {
           s.tools.web.search.provider = v.text;
         }),
    text("tools.web.search.apiKey", false,
         [](settings& s, name_t, val_t v) {
           s.tools.web.search.api_key = v.text;
         }),
    text("tools.web.search.baseUrl", false,
         [](settings& s, name_t, val_t v) {
           s.tools.web.search.base_url = v.text;
         }),
    leaf("tools.web.search.maxResults", k::integer, 1, 10,
         [](settings& s, name_t, val_t v) {
           s.tools.web.search.max_results = i32(v);
         }),
    leaf("tools.web.search.timeout", k::seconds, 1, 600,
         [](settings& s, name_t, val_t v) {
           s.tools.web.search.timeout_s = i32(v);
         }),
    ignored("tools.file"),
    section("tools.cliApps"),
    leaf(
      "tools.cliApps.enable", k::boolean, -no_limit, no_limit,
      [](settings& s, name_t, val_t v) { s.tools.cli_apps.enable = v.flag; }),
    leaf("tools.cliApps.runTimeout", k::seconds, 1, 600,
         [](settings& s, name_t, val_t v) {
           s.tools.cli_apps.run_timeout_s = i32(v);
         }),
    leaf("tools.cliApps.installTimeout", k::seconds, 1, 3600,
         [](settings& s, name_t, val_t v) {
           s.tools.cli_apps.install_timeout_s = i32(v);
         }),
    leaf("tools.cliApps.catalogTtlSeconds", k::seconds, 60, 86400,
         [](settings& s, name_t, val_t v) {
           s.tools.cli_apps.catalog_ttl_s = i32(v);
         }),
    section("tools.my"),
    leaf("tools.my.enable", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) { s.tools.my_enable = v.flag; }),
    ignored("tools.my.allowSet"),
    ignored("tools.imageGeneration"),
    leaf("tools.maxSessionMessagesPerMinute", k::integer, 1, i32_max,
         [](settings& s, name_t, val_t v) {
           s.tools.max_session_messages_per_minute = i32(v);
         }),
    ignored("tools.webuiAllowLocalServiceAccess"),
    ignored("tools.webuiAllowRemotePackageInstall"),
    section("tools.browser"),
    leaf("tools.browser.enable", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) { s.tools.browser.enable = v.flag; }),
    text("tools.browser.executable", true,
         [](settings& s, name_t, val_t v) {
           s.tools.browser.executable = v.text;
         }),
    leaf(
      "tools.browser.headless", k::boolean, -no_limit, no_limit,
      [](settings& s, name_t, val_t v) { s.tools.browser.headless = v.flag; }),
    leaf("tools.browser.idleMinutes", k::number, 0.001, 1e6,
         [](settings& s, name_t, val_t v) {
           s.tools.browser.idle_minutes = v.number;
         }),
    leaf(
      "tools.browser.maxTabs", k::integer, 1, 100,
      [](settings& s, name_t, val_t v) { s.tools.browser.max_tabs = i32(v); }),
    leaf("tools.browser.navigationTimeout", k::seconds, 1, 3600,
         [](settings& s, name_t, val_t v) {
           s.tools.browser.navigation_timeout_s = i32(v);
         }),
    text("tools.browser.userDataDir", false,
         [](settings& s, name_t, val_t v) {
           s.tools.browser.user_data_dir = v.text;
         }),
    leaf("tools.browser.maxSnapshotChars", k::integer, 500, 10000000,
         [](settings& s, name_t, val_t v) {
           s.tools.browser.max_snapshot_chars = i32(v);
         }),
    leaf("tools.browser.allowEvaluate", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.tools.browser.allow_evaluate = v.flag;
         }),
    ignored("tools.mcpServers"),
    leaf("tools.ssrfWhitelist", k::string_list, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) { s.tools.ssrf_whitelist = v.list; }),
  };
}

} // namespace nb::config::key_builders
