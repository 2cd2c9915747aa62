// The environment: ${VAR} interpolation (H5), NANOBOT_SECTION__KEY
// overrides and the timeout knobs. The environment is injected.
#include "tests/config/helpers.hpp"

#include <strings.h>
#include <unistd.h>

#include "config/pipeline.hpp"

using namespace nb;
using namespace nb::test;

TEST_CASE("${VAR} references are resolved inside string values") {
  auto l = ok(parse(R"({
    "providers": {"openrouter": {"apiKey": "${OPENROUTER_KEY}",
      "extraHeaders": {"Authorization": "Bearer ${TOKEN}"}}},
    "agents": {"defaults": {"workspace": "${BASE}/ws/${BASE}"}},
    "tools": {"exec": {"allowedEnvKeys": ["${PAT}", "literal $ {x} ${ no"]}},
    "api": {"port": "${PORT}"}})",
                    {{"OPENROUTER_KEY", "sk-or-1"},
                     {"TOKEN", "t0k"},
                     {"BASE", "/b"},
                     {"PAT", "rm -rf"},
                     {"PORT", "8911"}}));
  const auto& s = l.value;
  CHECK(s.providers.at("openrouter").api_key == "sk-or-1");
  CHECK(s.providers.at("openrouter").extra_headers.at("Authorization")
        == "Bearer t0k");
  CHECK(s.agent.workspace == "/b/ws//b");
  CHECK(s.tools.exec.allowed_env_keys[0] == "rm -rf");
  CHECK(s.tools.exec.allowed_env_keys[1] == "literal $ {x} ${ no");
  CHECK(s.api.port == 8911);
}

TEST_CASE("an unset ${VAR} is an error naming the key and the variable") {
  auto e = err(parse(R"({"providers": {"openrouter":
                          {"apiKey": "prefix-${OPENROUTER_KEY}"}}})"));
  CHECK(e.key_path == "providers.openrouter.apiKey");
  CHECK(contains(e.reason, "OPENROUTER_KEY"));
  CHECK(contains(e.reason, "not set"));
  CHECK_FALSE(contains(e.message(), "prefix-"));

  auto many = err(parse(R"({"api": {"apiKey": "${A_KEY}"},
      "tools": {"exec": {"denyPatterns": ["${B_PAT}"]}}})"));
  CHECK(many.key_path == "api.apiKey");
  CHECK(contains(many.reason, "A_KEY"));
  CHECK(contains(many.reason, "B_PAT"));
  CHECK(contains(many.reason, "tools.exec.denyPatterns[0]"));
}

TEST_CASE("${VAR} in a key this gateway does not use is left alone") {
  auto l = ok(parse(R"({"channels": {"telegram": {"token": "${TG}"}}})"));
  CHECK(l.warnings.empty());
}

TEST_CASE("NANOBOT_SECTION__KEY variables override the file") {
  auto l = ok(parse(R"({"agents": {"defaults": {"model": "from-file",
                         "max_tokens": 5}},
                        "api": {"port": 8900},
                        "providers": {"myProxy": {"apiBase": "http://old"}}})",
                    {{"NANOBOT_AGENTS__DEFAULTS__MODEL", "openai/gpt-4o"},
                     {"NANOBOT_AGENTS__DEFAULTS__MAXTOKENS", "100"},
                     {"NANOBOT_API__PORT", "8901"},
                     {"NANOBOT_PROVIDERS__CUSTOM__API_KEY", "sk-c"},
                     {"NANOBOT_PROVIDERS__MYPROXY__API_BASE", "http://new"},
                     {"NANOBOT_TOOLS__EXEC__ENABLE", "false"},
                     {"NANOBOT_TOOLS__EXEC__DENY_PATTERNS", "[\"a\", \"b\"]"},
                     {"NANOBOT_GATEWAY__PROVIDER_WORKERS", "16"}}));
  const auto& s = l.value;
  CHECK(s.agent.model == "openai/gpt-4o");
  CHECK(s.agent.max_tokens == 100);
  CHECK(s.api.port == 8901);
  CHECK(s.providers.at("custom").api_key == "sk-c");
  CHECK(s.providers.at("myProxy").api_base == "http://new");
  CHECK_FALSE(s.tools.exec.enable);
  CHECK(s.tools.exec.deny_patterns == std::vector<std::string>{"a", "b"});
  CHECK(s.gateway.provider_workers == 16);
  CHECK(any_contains(l.notices, "api.port set from environment variable "
                                "NANOBOT_API__PORT"));
  // Overrides that address nothing create nothing.
  CHECK(s.providers.count("openrouter") == 0);
}

TEST_CASE("an override for a string key stays a string") {
  auto l = ok(parse("{}", {{"NANOBOT_AGENTS__DEFAULTS__MODEL", "123"},
                           {"NANOBOT_API__API_KEY", "\"quoted\""}}));
  CHECK(l.value.agent.model == "123");
  CHECK(l.value.api.api_key == "quoted");
}

TEST_CASE("a bad override names the key and the variable, not the value") {
  auto e = err(parse("{}", {{"NANOBOT_API__PORT", "sk-secret-port"}}));
  CHECK(e.key_path == "api.port");
  CHECK(contains(e.reason, "NANOBOT_API__PORT"));
  CHECK_FALSE(contains(e.message(), "sk-secret-port"));

  auto range = err(parse("{}", {{"NANOBOT_API__PORT", "99999"}}));
  CHECK(range.key_path == "api.port");
  CHECK(contains(range.reason, "between 1 and 65535"));
}

TEST_CASE("overrides also apply when the config file is missing") {
  temp_dir dir;
  auto l = ok(load_settings(dir.path + "/none.json",
                            env_of({{"NANOBOT_API__PORT", "8902"}})));
  CHECK(l.value.api.port == 8902);
}

TEST_CASE("the system environment matches NANOBOT_ names in any case") {
  REQUIRE(setenv("nanobot_Test_Probe__Key", "v1", 1) == 0);
  REQUIRE(setenv("NB_CONFIG_TEST_EXACT", "v2", 1) == 0);
  auto env = system_env();
  CHECK(env("NANOBOT_TEST_PROBE__KEY") == std::optional<std::string>{"v1"});
  CHECK(env("NB_CONFIG_TEST_EXACT") == std::optional<std::string>{"v2"});
  CHECK_FALSE(env("nb_config_test_exact").has_value());
  unsetenv("nanobot_Test_Probe__Key");
  unsetenv("NB_CONFIG_TEST_EXACT");
  CHECK_FALSE(env("NB_CONFIG_TEST_EXACT").has_value());
  // NANOBOT_ names are as they were when the lookup was made (one load).
  CHECK(env("NANOBOT_TEST_PROBE__KEY") == std::optional<std::string>{"v1"});
  CHECK_FALSE(system_env()("NANOBOT_TEST_PROBE__KEY").has_value());
}

TEST_CASE("system environment overrides apply; without NANOBOT_ variables "
          "none is searched for") {
  // The process's own NANOBOT_ variables (if the runner set any) are put
  // aside so that "none set" is true, and restored after.
  std::vector<std::pair<std::string, std::string>> saved;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry{*e};
    auto eq = entry.find('=');
    if (eq != std::string::npos && eq >= 8
        && strncasecmp(entry.c_str(), "NANOBOT_", 8) == 0)
      saved.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  for (const auto& [name, _] : saved)
    unsetenv(name.c_str());
  temp_dir dir;
  auto missing = dir.path + "/none.json";
  CHECK(config::sets_no_nanobot_variable(system_env()));
  CHECK(ok(load_settings(missing, system_env())).value.api.port == 8900);
  // An injected lookup cannot be asked which names it has: searched always.
  CHECK_FALSE(config::sets_no_nanobot_variable(env_of({})));

  REQUIRE(setenv("nanobot_api__port", "8903", 1) == 0);
  CHECK_FALSE(config::sets_no_nanobot_variable(system_env()));
  CHECK(ok(load_settings(missing, system_env())).value.api.port == 8903);
  unsetenv("nanobot_api__port");
  for (const auto& [name, value] : saved)
    setenv(name.c_str(), value.c_str(), 1);
}

TEST_CASE("timeout variables are parsed and clamped") {
  struct row {
    const char* llm;
    const char* idle;
    int32_t want_llm;
    int32_t want_idle;
    bool warns;
  };
  const std::vector<row> rows = {
    {nullptr, nullptr, 300, 90, false}, {"0", nullptr, 0, 90, false},
    {"12.5", "30", 13, 30, false},      {" 45 ", "0.5", 45, 1, false},
    {"-1", nullptr, 300, 90, true},     {"abc", nullptr, 300, 90, true},
    {"", nullptr, 300, 90, true},       {nullptr, "5000", 300, 3600, true},
    {nullptr, "0", 300, 90, true},      {nullptr, "-3", 300, 90, true},
    {nullptr, "nan", 300, 90, true},    {nullptr, "3600", 300, 3600, false},
    {"1e30", nullptr, 2147483647, 90, false},
  };
  for (const auto& r : rows) {
    CAPTURE(r.llm ? r.llm : "(unset)");
    CAPTURE(r.idle ? r.idle : "(unset)");
    std::map<std::string, std::string> vars;
    if (r.llm)
      vars["NANOBOT_LLM_TIMEOUT_S"] = r.llm;
    if (r.idle)
      vars["NANOBOT_STREAM_IDLE_TIMEOUT_S"] = r.idle;
    auto l = ok(parse("{}", vars));
    CHECK(l.value.timeouts.llm_timeout_s == r.want_llm);
    CHECK(l.value.timeouts.stream_idle_timeout_s == r.want_idle);
    CHECK(l.warnings.empty() == !r.warns);
  }
}
