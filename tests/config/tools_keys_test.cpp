// The tool keys issue 5 reads: exec limits and allowlist, web search,
// tools.ssrfWhitelist (bad entries warned about) and tools.mcpServers
// (nested lists and maps, ${VAR}, transport inferred, clear errors).
#include "tests/config/helpers.hpp"

using namespace nb;
using namespace nb::test;

TEST_CASE("tool keys land in the settings") {
  auto l = ok(parse(R"({"tools": {
    "exec": {"allowPatterns": ["ls"], "allowedEnvKeys": ["GOPATH"],
             "maxProcesses": 64, "maxMemoryMb": 512, "maxCpuSeconds": 9},
    "web": {"search": {"provider": "brave", "apiKey": "${BRAVE}",
                       "maxResults": 7}},
    "ssrfWhitelist": ["10.0.0.0/8", "abc"]}})",
                    {{"BRAVE", "bk"}}));
  auto& t = l.value.tools;
  CHECK(t.exec.allow_patterns == std::vector<std::string>{"ls"});
  CHECK(t.exec.allowed_env_keys == std::vector<std::string>{"GOPATH"});
  CHECK(t.exec.max_processes == 64);
  CHECK(t.exec.max_memory_mb == 512);
  CHECK(t.exec.max_cpu_s == 9);
  CHECK(t.web.search.provider == "brave");
  CHECK(t.web.search.api_key == "bk");
  CHECK(t.web.search.max_results == 7);
  CHECK(t.ssrf_whitelist.size() == 2);
  CHECK(any_contains(l.warnings, "tools.ssrfWhitelist[1] is not an IP "
                                 "network"));
  CHECK_FALSE(any_contains(l.warnings, "tools.ssrfWhitelist[0]"));
}

TEST_CASE("mcp servers are read with their transport") {
  auto l = ok(parse(R"({"tools": {"mcpServers": {
    "fs": {"command": "npx", "args": ["-y", "server", "${DIR}"],
           "env": {"TOKEN": "${TOK}"}, "toolTimeout": 12,
           "enabledTools": ["read_file"]},
    "remote": {"url": "https://mcp.example/sse",
               "headers": {"Authorization": "Bearer x"}},
    "stream": {"url": "https://mcp.example/mcp"}}}})",
                    {{"DIR", "/data"}, {"TOK", "t0k"}}));
  auto& m = l.value.tools.mcp_servers;
  REQUIRE(m.size() == 3);
  CHECK(m["fs"].type == "stdio");
  CHECK(m["fs"].args == std::vector<std::string>{"-y", "server", "/data"});
  CHECK(m["fs"].env["TOKEN"] == "t0k");
  CHECK(m["fs"].tool_timeout_s == 12);
  CHECK(m["fs"].enabled_tools == std::vector<std::string>{"read_file"});
  CHECK(m["remote"].type == "sse");
  CHECK(m["remote"].headers["Authorization"] == "Bearer x");
  CHECK(m["stream"].type == "streamableHttp");
  CHECK(m["stream"].tool_timeout_s == 30);
  CHECK_FALSE(any_contains(l.notices, "mcpServers"));
}

TEST_CASE("mcp server mistakes name the key") {
  CHECK(contains(err(parse(R"({"tools":{"mcpServers":{"a":{"args":[1]}}}})"))
                   .message(),
                 "tools.mcpServers.a.args[0]"));
  CHECK(contains(err(parse(R"({"tools":{"mcpServers":{"a":{"type":"stdio"}}}})"))
                   .message(),
                 "tools.mcpServers.a.command"));
  CHECK(contains(err(parse(R"({"tools":{"mcpServers":{"a":{"command":"x",
                   "toolTimeout":0}}}})")).message(),
                 "tools.mcpServers.a.toolTimeout"));
  CHECK(contains(err(parse(R"({"tools":{"mcpServers":{"a":{"command":"x",
                   "env":{"K":"${NOPE}"}}}}})")).message(),
                 "NOPE"));
}

TEST_CASE("tools.maxSessionMessagesPerMinute: the original's default, a "
          "bound of at least one") {
  CHECK(ok(parse(R"({})")).value.tools.max_session_messages_per_minute == 6);
  CHECK(ok(parse(R"({"tools": {"maxSessionMessagesPerMinute": 2}})"))
          .value.tools.max_session_messages_per_minute
        == 2);
  CHECK(ok(parse(R"({"tools": {"max_session_messages_per_minute": 9}})"))
          .value.tools.max_session_messages_per_minute
        == 9);
  auto zero = err(parse(R"({"tools": {"maxSessionMessagesPerMinute": 0}})"));
  CHECK(contains(zero.message(), "tools.maxSessionMessagesPerMinute"));
  CHECK(contains(zero.message(), "must be at least 1"));
  auto text = err(parse(R"({"tools": {"maxSessionMessagesPerMinute": "x"}})"));
  CHECK(contains(text.message(), "expected an integer"));
}

TEST_CASE("tools.my.enable switches the my tool; allowSet is accepted") {
  CHECK(ok(parse(R"({})")).value.tools.my_enable);
  auto l =
    ok(parse(R"({"tools": {"my": {"enable": false, "allowSet": true}}})"));
  CHECK_FALSE(l.value.tools.my_enable);
  CHECK(contains(err(parse(R"({"tools": {"my": {"enable": "no"}}})")).message(),
                 "tools.my.enable"));
}

TEST_CASE("tools.exec background session limits: the original's defaults and "
          "errors naming the key") {
  auto d = ok(parse(R"({})")).value.tools.exec;
  CHECK(d.max_sessions == 8);
  CHECK(d.session_idle_timeout_s == 1800);
  CHECK(d.session_buffer_chars == 50000);
  auto set = ok(parse(R"({"tools": {"exec": {"maxSessions": 2,
    "sessionIdleTimeout": 90, "session_buffer_chars": 4000}}})"))
               .value.tools.exec;
  CHECK(set.max_sessions == 2);
  CHECK(set.session_idle_timeout_s == 90);
  CHECK(set.session_buffer_chars == 4000);
  CHECK(
    contains(err(parse(R"({"tools": {"exec": {"maxSessions": 0}}})")).message(),
             "tools.exec.maxSessions"));
  CHECK(contains(
    err(parse(R"({"tools": {"exec": {"sessionIdleTimeout": -1}}})")).message(),
    "tools.exec.sessionIdleTimeout"));
  CHECK(contains(
    err(parse(R"({"tools": {"exec": {"sessionBufferChars": 10}}})")).message(),
    "tools.exec.sessionBufferChars"));
  CHECK(contains(
    err(parse(R"({"tools": {"exec": {"maxSessions": "many"}}})")).message(),
    "tools.exec.maxSessions"));
}

TEST_CASE("tools.cliApps: enable, runTimeout, installTimeout and "
          "catalogTtlSeconds are read with the original's defaults and "
          "bounds") {
  auto d = ok(parse(R"({})")).value.tools.cli_apps;
  CHECK(d.enable);
  CHECK(d.run_timeout_s == 60);
  CHECK(d.install_timeout_s == 300);
  CHECK(d.catalog_ttl_s == 3600);
  auto l = ok(parse(R"({"tools": {"cliApps": {"enable": false,
    "runTimeout": 90, "installTimeout": 300, "catalogTtlSeconds": 3600}}})"));
  CHECK_FALSE(l.value.tools.cli_apps.enable);
  CHECK(l.value.tools.cli_apps.run_timeout_s == 90);
  CHECK(l.value.tools.cli_apps.install_timeout_s == 300);
  CHECK(l.value.tools.cli_apps.catalog_ttl_s == 3600);
  CHECK_FALSE(any_contains(l.notices, "tools.cliApps.installTimeout"));
  CHECK_FALSE(any_contains(l.notices, "tools.cliApps.catalogTtlSeconds"));
  CHECK_FALSE(any_contains(l.notices, "tools.cliApps.runTimeout"));
  CHECK_FALSE(any_contains(l.notices, "tools.cliApps.enable"));
  CHECK(contains(
    err(parse(R"({"tools": {"cliApps": {"runTimeout": 601}}})")).message(),
    "tools.cliApps.runTimeout"));
  CHECK(contains(
    err(parse(R"({"tools": {"cliApps": {"catalogTtlSeconds": 59}}})"))
      .message(),
    "tools.cliApps.catalogTtlSeconds"));
  CHECK(contains(
    err(parse(R"({"tools": {"cliApps": {"installTimeout": 3601}}})"))
      .message(),
    "tools.cliApps.installTimeout"));
}
