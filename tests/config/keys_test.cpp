// The key table's user-facing side: unknown keys warn with a suggestion
// (H4), keys nanobot knows but we do not use stay quiet.
#include "config/keys.hpp"
#include "tests/config/helpers.hpp"

using namespace nb;
using namespace nb::test;

TEST_CASE("a misspelled key warns with a did-you-mean (H4)") {
  auto l = ok(parse(R"({"tools": {"restrictToWorkspce": false}})"));
  REQUIRE(l.warnings.size() == 1);
  CHECK(contains(l.warnings[0], "tools.restrictToWorkspce"));
  CHECK(contains(l.warnings[0], "did you mean tools.restrictToWorkspace?"));
  // The typo did not take effect.
  CHECK(l.value.tools.restrict_to_workspace);

  struct row {
    const char* json;
    const char* suggestion;
  };
  for (auto r : {row{R"({"agent": {}})", "did you mean agents?"},
                 row{R"({"api": {"prot": 1}})", "did you mean api.port?"},
                 row{R"({"agents": {"defaults": {"max_tokes": 1}}})",
                     "did you mean agents.defaults.maxTokens?"},
                 row{R"({"providers": {"openai": {"apikey": "x"}}})",
                     "did you mean providers.openai.apiKey?"}}) {
    CAPTURE(r.json);
    auto w = ok(parse(r.json)).warnings;
    REQUIRE(w.size() == 1);
    CHECK(contains(w[0], r.suggestion));
  }
  auto far = ok(parse(R"({"zebra": 1})")).warnings;
  REQUIRE(far.size() == 1);
  CHECK(contains(far[0], "unknown config key zebra"));
  CHECK_FALSE(contains(far[0], "did you mean"));
}

TEST_CASE("a key that looks like a secret is not repeated in a warning") {
  auto w = ok(parse(R"({"sk-proj-abcdefABCDEF0123456789": true})")).warnings;
  REQUIRE(w.size() == 1);
  CHECK_FALSE(contains(w[0], "abcdefABCDEF"));
  CHECK(contains(w[0], "<redacted key>"));
}

TEST_CASE("keys nanobot knows but this gateway does not use are quiet") {
  auto l = ok(parse(R"({
    "agents": {"defaults": {"reasoningEffort": "high", "timezone": "UTC",
      "fallbackModels": [], "dream": {"enabled": true}, "bot_name": "x",
      "idleCompactAfterMinutes": 15, "memoryWindow": 50}},
    "modelPresets": {"fast": {"model": "m"}},
    "channels": {"sendProgress": true, "telegram": {"token": "t",
      "weird": {"nested": [1, 2]}}},
    "transcription": {"enabled": false},
    "providers": {"openai": {"apiType": "responses", "proxy": null,
      "extraBody": {"a": 1}}},
    "tools": {"web": {"search": {"provider": "brave"}}, "mcpServers": {},
      "exec": {"sandbox": "bwrap", "allowPatterns": []},
      "ssrfWhitelist": [], "cliApps": {"enable": true}},
    "gateway": {"heartbeat": {"enabled": false, "intervalS": 600},
      "restartMode": "auto"}})"));
  CHECK(l.warnings.empty());
  CHECK(l.value.channels.at("telegram").raw_json.find("weird")
        != std::string::npos);
  CHECK(any_contains(l.notices, "gateway.restartMode"));
  CHECK_FALSE(l.value.gateway.heartbeat.enabled);
  CHECK(l.value.gateway.heartbeat.interval_s == 600);
  CHECK(l.value.gateway.heartbeat.keep_recent_messages == 8);
}

TEST_CASE("context memory and subagent keys reach the settings") {
  auto d = ok(parse("{}")).value.agent;
  CHECK(d.max_tool_result_chars == 16000);
  CHECK(d.idle_compact_after_minutes == 15);
  CHECK(d.max_concurrent_subagents == 1);
  CHECK(d.fail_on_tool_error);
  CHECK(d.timezone.empty());
  auto a = ok(parse(R"({"agents": {"defaults": {"maxToolResultChars": 500,
    "idle_compact_after_minutes": 0, "maxConcurrentSubagents": 3,
    "failOnToolError": false, "timezone": "Europe/Berlin"}}})")).value.agent;
  CHECK(a.max_tool_result_chars == 500);
  CHECK(a.idle_compact_after_minutes == 0);
  CHECK(a.max_concurrent_subagents == 3);
  CHECK_FALSE(a.fail_on_tool_error);
  CHECK(a.timezone == "Europe/Berlin");
  // nanobot's older name for the idle timeout still works
  auto old = ok(parse(R"({"agents": {"defaults": {"sessionTtlMinutes": 40}}})"));
  CHECK(old.value.agent.idle_compact_after_minutes == 40);
  CHECK(old.warnings.empty());
}

TEST_CASE("the key table is consistent") {
  for (const auto& spec : config::key_table()) {
    CAPTURE(std::string{spec.path});
    bool leaf = spec.kind != config::key_kind::section
                && spec.kind != config::key_kind::named_sections
                && spec.kind != config::key_kind::ignored
                && spec.kind != config::key_kind::external;
    CHECK(leaf == (spec.apply != nullptr));
    // Every key's parent is in the table, so the walk can reach it.
    auto dot = spec.path.rfind('.');
    if (dot == std::string_view::npos)
      continue;
    auto parent = spec.path.substr(0, dot);
    if (parent.ends_with(".*"))
      parent.remove_suffix(2);
    bool found = false;
    for (const auto& other : config::key_table())
      found = found || other.path == parent;
    CHECK(found);
  }
  CHECK(config::snake_case("contextWindowTokens") == "context_window_tokens");
  CHECK(config::key_matches("session_idle_seconds", "sessionIdleSeconds"));
  CHECK_FALSE(config::key_matches("sessionidleseconds", "sessionIdleSeconds"));
}

TEST_CASE("tools.browser keys are read, and enable stays unset by default") {
  auto d = ok(parse(R"({})"));
  CHECK_FALSE(d.value.tools.browser.enable.has_value());
  CHECK(d.value.tools.browser.idle_minutes == 10);
  CHECK(d.value.tools.browser.max_snapshot_chars == 12000);
  auto l = ok(parse(R"({"tools": {"browser": {"enable": false,
    "executable": "/opt/chromium/chrome", "headless": false,
    "idleMinutes": 0.5, "maxTabs": 3, "navigationTimeout": 12,
    "userDataDir": "/tmp/profiles", "maxSnapshotChars": 4000,
    "allow_evaluate": true}}})"));
  CHECK(l.warnings.empty());
  const auto& b = l.value.tools.browser;
  CHECK(b.enable == false);
  CHECK(b.executable == "/opt/chromium/chrome");
  CHECK_FALSE(b.headless);
  CHECK(b.idle_minutes == 0.5);
  CHECK(b.max_tabs == 3);
  CHECK(b.navigation_timeout_s == 12);
  CHECK(b.user_data_dir == "/tmp/profiles");
  CHECK(b.max_snapshot_chars == 4000);
  CHECK(b.allow_evaluate);
}
