// The config key table (REFERENCE §16) and spelling helpers.
#include "config/keys.hpp"

#include "config/key_builders.hpp"

namespace nb::config {

namespace {

using namespace key_builders;

std::vector<key_spec> make_table() {
  std::vector<key_spec> table{
    section("agents"),
    section("agents.defaults"),
    text("agents.defaults.workspace", true,
         [](settings& s, name_t, val_t v) { s.agent.workspace = v.text; }),
    text("agents.defaults.model", true,
         [](settings& s, name_t, val_t v) { s.agent.model = v.text; }),
    text("agents.defaults.provider", true,
         [](settings& s, name_t, val_t v) { s.agent.provider = v.text; }),
    leaf("agents.defaults.maxTokens", k::integer, 1, i32_max,
         [](settings& s, name_t, val_t v) { s.agent.max_tokens = i32(v); }),
    leaf("agents.defaults.temperature", k::number, 0, 2,
         [](settings& s, name_t, val_t v) { s.agent.temperature = v.number; }),
    leaf("agents.defaults.maxToolIterations", k::integer, 1, 100000,
         [](settings& s, name_t, val_t v) {
           s.agent.max_tool_iterations = i32(v);
         }),
    leaf("agents.defaults.contextWindowTokens", k::integer, 1, i32_max,
         [](settings& s, name_t, val_t v) {
           s.agent.context_window_tokens = i32(v);
         }),
    text("agents.defaults.modelPreset", false,
         [](settings& s, name_t, val_t v) { s.agent.model_preset = v.text; }),
    ignored("agents.defaults.contextBlockLimit"),
    leaf(
      "agents.defaults.fallbackModels", k::model_list, -no_limit, no_limit,
      [](settings& s, name_t, val_t v) { s.agent.fallback_models = v.models; }),
    leaf("agents.defaults.maxConcurrentSubagents", k::integer, 1, 64,
         [](settings& s, name_t, val_t v) {
           s.agent.max_concurrent_subagents = i32(v);
         }),
    leaf("agents.defaults.failOnToolError", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.agent.fail_on_tool_error = v.flag;
         }),
    leaf("agents.defaults.maxToolResultChars", k::integer, 100, i32_max,
         [](settings& s, name_t, val_t v) {
           s.agent.max_tool_result_chars = i32(v);
         }),
    ignored("agents.defaults.providerRetryMode"),
    ignored("agents.defaults.toolHintMaxLength"),
    text(
      "agents.defaults.reasoningEffort", false,
      [](settings& s, name_t, val_t v) { s.agent.reasoning_effort = v.text; }),
    text("agents.defaults.timezone", false,
         [](settings& s, name_t, val_t v) { s.agent.timezone = v.text; }),
    ignored("agents.defaults.timezoneMode"),
    ignored("agents.defaults.botName"),
    // Lists of objects, read by config/agents.cpp.
    {"agents.list", k::external},
    {"agents.bindings", k::external},
    ignored("agents.defaults.botIcon"),
    leaf(
      "agents.defaults.unifiedSession", k::boolean, -no_limit, no_limit,
      [](settings& s, name_t, val_t v) { s.agent.unified_session = v.flag; }),
    leaf(
      "agents.defaults.disabledSkills", k::string_list, -no_limit, no_limit,
      [](settings& s, name_t, val_t v) { s.agent.disabled_skills = v.list; }),
    // sessionTtlMinutes is nanobot's older name for the same setting
    leaf("agents.defaults.idleCompactAfterMinutes", k::integer, 0, 1000000,
         [](settings& s, name_t, val_t v) {
           s.agent.idle_compact_after_minutes = i32(v);
         }),
    leaf("agents.defaults.sessionTtlMinutes", k::integer, 0, 1000000,
         [](settings& s, name_t, val_t v) {
           s.agent.idle_compact_after_minutes = i32(v);
         }),
    ignored("agents.defaults.idleCompactCheckIntervalSeconds"),
    // Read by config/memory_config.cpp (the semantic memory index).
    {"agents.defaults.memory", k::external},
    ignored("agents.defaults.consolidationRatio"),
    section("agents.defaults.dream"),
    leaf("agents.defaults.dream.enabled", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) { s.agent.dream.enabled = v.flag; }),
    leaf(
      "agents.defaults.dream.intervalH", k::integer, 1, 100000,
      [](settings& s, name_t, val_t v) { s.agent.dream.interval_h = i32(v); }),
    text("agents.defaults.dream.cron", false,
         [](settings& s, name_t, val_t v) { s.agent.dream.cron = v.text; }),
    text("agents.defaults.dream.modelOverride", false,
         [](settings& s, name_t, val_t v) {
           s.agent.dream.model_override = v.text;
         }),
    text("agents.defaults.dream.model", false,
         [](settings& s, name_t, val_t v) {
           s.agent.dream.model_override = v.text;
         }),
    ignored("agents.defaults.memoryWindow"), // legacy, nanobot ignores it
    ignored("agents.defaults.maxMessages"),  // legacy, nanobot ignores it

    {"providers", k::named_sections},
    text(
      "providers.*.apiKey", false,
      [](settings& s, name_t n, val_t v) { s.providers[n].api_key = v.text; }),
    text(
      "providers.*.apiBase", false,
      [](settings& s, name_t n, val_t v) { s.providers[n].api_base = v.text; }),
    leaf("providers.*.extraHeaders", k::string_map, -no_limit, no_limit,
         [](settings& s, name_t n, val_t v) {
           s.providers[n].extra_headers = v.map;
         }),
    text(
      "providers.*.apiType", true,
      [](settings& s, name_t n, val_t v) { s.providers[n].api_type = v.text; }),
    leaf("providers.*.extraBody", k::json_object, -no_limit, no_limit,
         [](settings& s, name_t n, val_t v) {
           s.providers[n].extra_body = v.text;
         }),
    leaf("providers.*.extraQuery", k::string_map, -no_limit, no_limit,
         [](settings& s, name_t n, val_t v) {
           s.providers[n].extra_query = v.map;
         }),
    text("providers.*.proxy", false,
         [](settings& s, name_t n, val_t v) { s.providers[n].proxy = v.text; }),
    text("providers.*.thinkingStyle", false,
         [](settings& s, name_t n, val_t v) {
           s.providers[n].thinking_style = v.text;
         }),
    ignored("providers.*.displayName"),
    ignored("providers.*.region"),
    ignored("providers.*.profile"),

  };
  auto tools = tools_keys();
  table.insert(table.end(), tools.begin(), tools.end());
  std::vector<key_spec> rest{
    section("api"),
    text("api.host", true,
         [](settings& s, name_t, val_t v) { s.api.host = v.text; }),
    leaf("api.port", k::integer, 1, 65535,
         [](settings& s, name_t, val_t v) { s.api.port = i32(v); }),
    text("api.apiKey", false,
         [](settings& s, name_t, val_t v) { s.api.api_key = v.text; }),
    leaf("api.timeout", k::seconds, 0, i32_max,
         [](settings& s, name_t, val_t v) { s.api.timeout_s = i32(v); }),

    section("gateway"),
    text("gateway.host", true,
         [](settings& s, name_t, val_t v) { s.gateway.host = v.text; }),
    leaf("gateway.port", k::integer, 1, 65535,
         [](settings& s, name_t, val_t v) { s.gateway.port = i32(v); }),
    leaf("gateway.schedulerThreads", k::integer, 0, 256,
         [](settings& s, name_t, val_t v) {
           s.gateway.scheduler_threads = i32(v);
         }),
    leaf("gateway.providerWorkers", k::integer, 1, 1024,
         [](settings& s, name_t, val_t v) {
           s.gateway.provider_workers = i32(v);
         }),
    leaf("gateway.toolWorkers", k::integer, 1, 256,
         [](settings& s, name_t, val_t v) { s.gateway.tool_workers = i32(v); }),
    ignored("gateway.exclusiveLanes"), // replaced by per-chat ordering
    leaf("gateway.httpThreads", k::integer, 1, 1024,
         [](settings& s, name_t, val_t v) { s.gateway.http_threads = i32(v); }),
    leaf(
      "gateway.sessionIdleSeconds", k::seconds, 1, i32_max,
      [](settings& s, name_t, val_t v) { s.gateway.session_idle_s = i32(v); }),
    leaf("gateway.drainSeconds", k::seconds, 0, 3600,
         [](settings& s, name_t, val_t v) { s.gateway.drain_s = i32(v); }),
    ignored("gateway.restartMode"),
    section("gateway.inbox"),
    leaf("gateway.inbox.maxBytes", k::integer, 4096, 1e12,
         [](settings& s, name_t, val_t v) {
           s.gateway.inbox.max_bytes = static_cast<int64_t>(v.number);
         }),
    section("gateway.heartbeat"),
    leaf("gateway.heartbeat.enabled", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.gateway.heartbeat.enabled = v.flag;
         }),
    leaf("gateway.heartbeat.intervalS", k::integer, 1, i32_max,
         [](settings& s, name_t, val_t v) {
           s.gateway.heartbeat.interval_s = i32(v);
         }),
    leaf("gateway.heartbeat.keepRecentMessages", k::integer, 0, 100000,
         [](settings& s, name_t, val_t v) {
           s.gateway.heartbeat.keep_recent_messages = i32(v);
         }),

    {"modelPresets", k::named_sections},
    text("modelPresets.*.model", true,
         [](settings& s, name_t n, val_t v) {
           s.model_presets[n].model = v.text;
         }),
    text("modelPresets.*.provider", true,
         [](settings& s, name_t n, val_t v) {
           s.model_presets[n].provider = v.text;
         }),
    leaf("modelPresets.*.maxTokens", k::integer, 1, i32_max,
         [](settings& s, name_t n, val_t v) {
           s.model_presets[n].max_tokens = i32(v);
         }),
    leaf("modelPresets.*.contextWindowTokens", k::integer, 1, i32_max,
         [](settings& s, name_t n, val_t v) {
           s.model_presets[n].context_window_tokens = i32(v);
         }),
    leaf("modelPresets.*.temperature", k::number, 0, 2,
         [](settings& s, name_t n, val_t v) {
           s.model_presets[n].temperature = v.number;
         }),
    text("modelPresets.*.reasoningEffort", false,
         [](settings& s, name_t n, val_t v) {
           s.model_presets[n].reasoning_effort = v.text;
         }),
    section("channels"),
    leaf("channels.sendProgress", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.channels_common.send_progress = v.flag;
         }),
    leaf("channels.sendToolHints", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.channels_common.send_tool_hints = v.flag;
         }),
    leaf("channels.showReasoning", k::boolean, -no_limit, no_limit,
         [](settings& s, name_t, val_t v) {
           s.channels_common.show_reasoning = v.flag;
         }),
    leaf("channels.sendMaxRetries", k::integer, 0, 10,
         [](settings& s, name_t, val_t v) {
           s.channels_common.send_max_retries = i32(v);
         }),
    ignored("channels.transcriptionProvider"),
    ignored("channels.transcriptionLanguage"),
    ignored("channels.extractDocumentText"),
    {"channels.*", k::raw_object, -no_limit, no_limit,
     [](settings& s, name_t n, val_t v) {
       s.channels[n] = channel_settings{v.flag, v.text};
     }},
    ignored("transcription"),

    // Read by config/cluster_config.cpp (nanobot node, the session store).
    {"cluster", k::external},
    {"sessionStore", k::external},
    {"sessionStoreDsn", k::external},
  };
  table.insert(table.end(), rest.begin(), rest.end());
  return table;
}

} // namespace

const std::vector<key_spec>& key_table() {
  static const std::vector<key_spec> table = make_table();
  return table;
}

std::string_view leaf_name(std::string_view path) {
  auto dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

std::vector<const key_spec*> children_of(std::string_view section) {
  std::vector<const key_spec*> out;
  for (const auto& spec : key_table()) {
    auto dot = spec.path.rfind('.');
    auto parent = dot == std::string_view::npos ? std::string_view{}
                                                : spec.path.substr(0, dot);
    if (parent == section)
      out.push_back(&spec);
  }
  return out;
}

} // namespace nb::config
