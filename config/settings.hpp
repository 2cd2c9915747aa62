// Typed settings: nanobot's config.json keys used by the gateway, loaded once
// and passed by value to the actors that need them.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nb {

/// One agents.defaults.fallbackModels entry: a modelPresets name, or an
/// inline model whose unset values come from the primary.
struct fallback_model {
  std::string preset; ///< a modelPresets name; "" = the fields below
  std::string model;
  std::string provider;              ///< "" = auto
  int32_t max_tokens = 0;            ///< 0 = the primary's
  int32_t context_window_tokens = 0; ///< 0 = the primary's
  double temperature = -1;           ///< < 0 = the primary's
  std::string reasoning_effort;      ///< "" = the primary's
};

/// agents.defaults.dream: the original's periodic memory consolidation (a
/// protected cron job "dream" that distils memory/history.jsonl into
/// memory/MEMORY.md).
struct dream_settings {
  bool enabled = true;
  int32_t interval_h = 2;
  std::string cron;           ///< legacy expression; wins over interval_h
  std::string model_override; ///< a modelPresets name ("" = the default model)
};

/// agents.defaults
struct agent_settings {
  std::string workspace = "~/.nanobot/workspace";
  std::string model = "anthropic/claude-opus-4-5";
  std::string provider = "auto"; ///< a providers.<name> key, or "auto"
  int32_t max_tokens = 8192;
  double temperature = 0.1;
  int32_t max_tool_iterations = 200;     ///< the original's default
  int32_t context_window_tokens = 200000; ///< the original's default
  std::string model_preset; ///< a modelPresets name; "" = the fields above
  std::vector<fallback_model> fallback_models;
  // -- context, memory and subagents
  int32_t max_tool_result_chars = 16000;   ///< longer results go to a file
  int32_t idle_compact_after_minutes = 15; ///< 0 = never archive idle chats
  int32_t max_concurrent_subagents = 1;    ///< running spawn tasks per gateway
  bool fail_on_tool_error = true;          ///< subagents stop on a tool error
  std::string timezone;                    ///< IANA name; "" = the host's
  dream_settings dream;
  /// low|medium|high|xhigh|max|adaptive|none...: how hard the model thinks;
  /// "" = the provider's own default (nothing is sent).
  std::string reasoning_effort;
  /// Every channel's chats share one session ("unified:default").
  bool unified_session = false;
  std::vector<std::string> disabled_skills; ///< skill names never loaded
};

/// modelPresets.<name>: a model and its generation settings, chosen with
/// agents.defaults.modelPreset or per session with /model.
struct model_preset {
  std::string model;
  std::string provider = "auto";
  int32_t max_tokens = 8192;
  int32_t context_window_tokens = 200000; ///< the original's default
  double temperature = 0.1;
  std::string reasoning_effort{}; ///< "" = the provider's default
};

/// providers.<name>
struct provider_settings {
  std::string api_key;
  std::string api_base; ///< "" = the provider's well-known base URL
  std::map<std::string, std::string> extra_headers;
  /// Fields merged into every request body last (a JSON object as text,
  /// "" = none); a "tools" list is added to ours, not put in its place.
  std::string extra_body;
  std::map<std::string, std::string> extra_query; ///< added to the URL
  std::string proxy; ///< "http://[user:pass@]host:port", "" = direct
  /// How this endpoint is told to think when reasoningEffort is set:
  /// "thinking_type", "enable_thinking", "reasoning_split" or "".
  std::string thinking_style;
  /// providers.openai only: "auto", "chat_completions" or "responses".
  std::string api_type = "auto";
};

/// tools.exec
struct exec_settings {
  bool enable = true;
  int32_t timeout_s = 60; ///< 0 = no timeout
  std::vector<std::string> deny_patterns; ///< added to the built-in ones
  std::string path_append;
  /// Non-empty: allowlist mode; every segment must match one of these.
  std::vector<std::string> allow_patterns;
  std::vector<std::string> allowed_env_keys; ///< passed on to the child
  int32_t max_processes = 256; ///< more processes a command may start
  int32_t max_memory_mb = 4096; ///< data segment per process (0 = none)
  int32_t max_cpu_s = 0; ///< CPU seconds per process (0 = timeout + 5)
  /// "" (sandboxed when tools.restrictToWorkspace is on) or "bwrap"
  /// (always sandboxed; the file tools are then held to the workspace too).
  std::string sandbox;
  std::vector<std::string> sandbox_ro_binds; ///< extra trees, read-only
  std::vector<std::string> sandbox_rw_binds; ///< extra trees, writable
  /// What a sandboxed command may reach: "none", "loopback-denied" (the
  /// internet, not the host's loopback or private ranges) or "host".
  std::string network = "loopback-denied";
  /// Background sessions (exec with yield_time_ms): at most this many at
  /// once, ended after this long without a call, and this much output kept
  /// per stream between two polls (the original's constants).
  int32_t max_sessions = 8;
  int32_t session_idle_timeout_s = 1800;
  int32_t session_buffer_chars = 50000;
};

/// tools.web.search
struct web_search_settings {
  std::string provider = "duckduckgo"; ///< brave, tavily, searxng, ...
  std::string api_key;
  std::string base_url; ///< "" = the provider's public endpoint
  int32_t max_results = 5;
  int32_t timeout_s = 30;
  /// Where the DuckDuckGo fallback goes ("" = html.duckduckgo.com); not a
  /// config key: tests point it at a local server.
  std::string fallback_base_url;
};

/// tools.web
struct web_settings {
  bool enable = true;
  /// web_fetch and web_search go through this HTTP proxy ("" = direct);
  /// the proxy then resolves names (REFERENCE 8.4).
  std::string proxy;
  std::string user_agent;
  web_search_settings search;
};

/// tools.mcpServers.<name>
struct mcp_server_settings {
  std::string type; ///< stdio, sse or streamableHttp ("" = from the fields)
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::string cwd;
  std::string url;
  std::map<std::string, std::string> headers;
  int32_t tool_timeout_s = 30;
  std::vector<std::string> enabled_tools{"*"};
};

/// Adds `extra` to `configured` (tools.mcpServers); a configured server of
/// the same name wins. Returns the names it shadowed.
std::vector<std::string>
merge_mcp_servers(std::map<std::string, mcp_server_settings>& configured,
                  std::map<std::string, mcp_server_settings> extra);

/// tools.browser: headless Chromium over the DevTools protocol (issue 17)
struct browser_settings {
  std::optional<bool> enable;           ///< unset: on when Chromium is found
  std::string executable = "chromium";  ///< a name on PATH or a path
  bool headless = true;
  double idle_minutes = 10;             ///< Chromium stops after this idle
  int32_t max_tabs = 8;                 ///< per session
  int32_t navigation_timeout_s = 30;
  std::string user_data_dir;            ///< "" = a fresh temporary profile
  int32_t max_snapshot_chars = 12000;
  bool allow_evaluate = false;          ///< offers the `evaluate` action
};

/// tools.cliApps: run_cli_app runs the CLI apps installed through the
/// original's Settings (<config dir>/cli-apps/installed.json).
struct cli_apps_settings {
  bool enable = true;
  int32_t run_timeout_s = 60;      ///< a call's default (1-600)
  int32_t install_timeout_s = 300; ///< an install, update or uninstall
  /// How long a fetched catalog (<source>_registry_cache.json) is used
  /// before it is fetched again (60-86400).
  int32_t catalog_ttl_s = 3600;
  /// The apps installed.json names, read with the config (at the start, or
  /// by the WebUI's save): run_cli_app's description lists them, and the
  /// tools are built on scheduler threads, where no file is read.
  std::vector<std::string> installed;
};

/// Whether the agent may see and call tool `name`: not matched by `deny`,
/// and matched by `allow` when that is not empty. A pattern is a name, or
/// a prefix ending in '*' ("mcp_github_*"); "*" matches every tool.
bool tool_permitted(const std::string& name,
                    const std::vector<std::string>& allow,
                    const std::vector<std::string>& deny);

/// tools
struct tool_settings {
  bool restrict_to_workspace = true;
  exec_settings exec;
  web_settings web;
  /// CIDRs the SSRF guard lets through (tools.ssrfWhitelist).
  std::vector<std::string> ssrf_whitelist;
  std::map<std::string, mcp_server_settings> mcp_servers;
  /// The servers of the main workspace's enabled Agent Plugins that were
  /// merged into mcp_servers (read beside the config): an agent with a
  /// workspace of its own does not get them (see for_agent).
  std::vector<std::string> main_plugin_servers;
  /// Each agents.list agent's own: the enabled Agent Plugins of its
  /// workspace (id -> servers), merged in by for_agent; a configured server
  /// of the same name wins, as for main.
  std::map<std::string, std::map<std::string, mcp_server_settings>>
    agent_plugin_servers;
  browser_settings browser;
  /// The agent's agents.list[].tools (see agent_profile): non-empty allow =
  /// only these tools; deny = never these.
  std::vector<std::string> allow, deny;
  /// send_session_message calls one session may make in any 60 s.
  int32_t max_session_messages_per_minute = 6;
  bool my_enable = true; ///< tools.my.enable: the my tool is offered
  cli_apps_settings cli_apps;
};

/// api (the OpenAI-compatible front door)
struct api_settings {
  std::string host = "127.0.0.1";
  int32_t port = 8900;
  std::string api_key; ///< "" = no auth (loopback only)
  int32_t timeout_s = 120; ///< per request, waiting for the turn
};

/// gateway.heartbeat: periodic work from HEARTBEAT.md (issue 4)
struct heartbeat_settings {
  bool enabled = true;
  int32_t interval_s = 1800;
  int32_t keep_recent_messages = 8; ///< the heartbeat session is cut to this
};

/// gateway (health, /stats, /metrics) and the runtime's own knobs
/// gateway.inbox: the durable inbox journal (actors/inbox).
struct inbox_settings {
  /// The journal refuses new messages past this size (the adapters then
  /// stop acknowledging their platform and report the inbox as full).
  int64_t max_bytes = 64 << 20;
};

struct gateway_settings {
  std::string host = "127.0.0.1";
  int32_t port = 18790;
  int32_t scheduler_threads = 0;  ///< 0 = number of cores (at least 2)
  int32_t provider_workers = 32;  ///< concurrent model calls
  /// Tool worker threads all chats share; a chat's exclusive calls run
  /// one at a time, in order.
  int32_t tool_workers = 8;
  int32_t http_threads = 64;      ///< HTTP front-door worker threads
  int32_t session_idle_s = 600;   ///< idle session actors quit after this
  /// On SIGTERM/SIGINT running turns get this long to finish; then what is
  /// left is cancelled and the process exits within 5 s more.
  int32_t drain_s = 15;
  heartbeat_settings heartbeat;
  inbox_settings inbox;
};

/// Timeouts that nanobot reads from NANOBOT_* environment variables.
struct timeout_settings {
  int32_t llm_timeout_s = 300;        ///< wall clock, non-streamed calls
  int32_t stream_idle_timeout_s = 90; ///< between stream events
};

/// channels.<name>: one chat channel. The object is kept verbatim (after
/// ${VAR} interpolation when enabled); each adapter parses its own keys.
struct channel_settings {
  bool enabled = false;
  std::string raw_json = "{}";
};

/// channels: keys shared by every channel (a channel may override the
/// first two in its own object).
struct channels_common_settings {
  bool send_progress = true;
  bool send_tool_hints = true;
  bool show_reasoning = true;
  int32_t send_max_retries = 3; ///< attempts, including the first (0-10)
};

/// agents.list[]: one more agent in this gateway, every field left out taken
/// from agents.defaults (already merged here). The implicit agent "main" is
/// agents.defaults itself and is not in the list.
struct agent_profile {
  std::string id;   ///< [a-z0-9_-]{1,32}, not "main"
  std::string name; ///< for people ("" = the id)
  agent_settings agent; ///< agents.defaults overlaid with this entry
  /// tools.allow / tools.deny: tool names ("*" = all; mcp_<server>_* too).
  /// Empty allow = every tool; deny wins over allow.
  std::vector<std::string> tools_allow, tools_deny;
  bool skills_set = false;          ///< skills given: only these are shown
  std::vector<std::string> skills;
  bool mcp_servers_set = false;     ///< mcpServers given: only these run
  std::vector<std::string> mcp_servers; ///< tools.mcpServers names
  bool heartbeat_set = false;
  heartbeat_settings heartbeat;     ///< gateway.heartbeat when not set
  std::vector<std::string> can_message; ///< agents send_to_agent may reach
};

/// agents.bindings[]: which agent answers matching inbound messages. Empty
/// fields match anything; the most specific entry wins (chatId, then
/// senderId, then group, then instance), ties go to the earlier entry; no
/// match means "main".
struct agent_binding {
  std::string agent;
  std::string channel;  ///< the platform (channels.<name>.type, else name)
  std::string instance{}; ///< the channels.<name> key ("" = any)
  std::string chat_id{};
  std::string sender_id{};
  int group = -1;       ///< -1 = any, 0 = direct chats, 1 = group chats
};

/// The whole configuration.
struct settings {
  agent_settings agent;
  std::map<std::string, provider_settings> providers;
  std::map<std::string, model_preset> model_presets;
  tool_settings tools;
  api_settings api;
  gateway_settings gateway;
  timeout_settings timeouts;
  channels_common_settings channels_common;
  std::map<std::string, channel_settings> channels;
  /// agents.list and agents.bindings (empty: one agent, "main").
  std::vector<agent_profile> agents;
  std::vector<agent_binding> bindings;
  /// The agent these settings are a view for (see for_agent).
  std::string agent_id = "main";
  /// The config file this came from (it may not exist: defaults apply).
  std::string config_path;
  /// The workspace with '~' expanded and made absolute.
  std::string workspace_path() const;
  /// The directory of config_path (absolute); it holds sessions/, outside
  /// the agent's workspace.
  std::string config_dir() const;
  /// The agent `id` ("main" or an agents.list id); null when unknown.
  const agent_profile* find_agent(const std::string& id) const;
  /// These settings as agent `id` sees them: its agents.defaults values,
  /// heartbeat and MCP servers (so workspace_path() is its workspace).
  /// "main" or an unknown id: the settings themselves.
  settings for_agent(const std::string& id) const;
  /// "main" followed by the agents.list ids, in order.
  std::vector<std::string> agent_ids() const;
  /// How long an actor waits for one model request's answer: the client
  /// may try 4 times, each bounded by timeouts.llmTimeoutS (at least 60 s),
  /// a stream by twice its idle timeout (at least 300 s); 60 s to spare.
  std::chrono::seconds model_request_timeout(bool stream) const;
};

/// The implicit agent: agents.defaults. Its session keys are unprefixed.
inline constexpr const char* main_agent = "main";

} // namespace nb
