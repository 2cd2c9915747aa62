// Validation: wrong types and ranges name the key, never the value (H3);
// both spellings; the api.host loopback rule; risky combinations (H9).
#include "config/posix_regex.hpp"
#include "tests/config/helpers.hpp"

using namespace nb;
using namespace nb::test;

namespace {

const std::string secret = "sk-live-7Hq2ZxSECRETw9";

} // namespace

TEST_CASE("wrong types and bad values name the key path (H3)") {
  struct row {
    std::string json;
    std::string key_path;
    std::string reason;
  };
  const std::vector<row> rows = {
    {R"({"agents": {"defaults": {"maxTokens": "SECRET"}}})",
     "agents.defaults.maxTokens", "expected an integer, found a string"},
    {R"({"providers": {"openrouter": {"apiKey": ["SECRET"]}}})",
     "providers.openrouter.apiKey", "expected a string, found an array"},
    {R"({"providers": {"openrouter": {"api_key": {"k": "SECRET"}}}})",
     "providers.openrouter.api_key", "expected a string, found an object"},
    {R"({"tools": {"exec": {"timeout": -1}}})", "tools.exec.timeout",
     "must not be negative"},
    {R"({"tools": {"exec": {"timeout": "SECRET"}}})", "tools.exec.timeout",
     "expected a number of seconds, found a string"},
    {R"({"api": {"port": 70000}})", "api.port",
     "must be between 1 and 65535"},
    {R"({"api": {"port": 0}})", "api.port", "must be between 1 and 65535"},
    {R"({"api": {"timeout": -5}})", "api.timeout", "must not be negative"},
    {R"({"agents": {"defaults": {"maxToolIterations": 0}}})",
     "agents.defaults.maxToolIterations", "must be between 1 and"},
    {R"({"agents": {"defaults": {"temperature": 2.5}}})",
     "agents.defaults.temperature", "must be between 0 and 2"},
    {R"({"agents": {"defaults": {"max_tokens": 0}}})",
     "agents.defaults.max_tokens", "must be at least 1"},
    {R"({"agents": {"defaults": {"maxTokens": 10.5}}})",
     "agents.defaults.maxTokens", "found a fractional number"},
    {R"({"agents": {"defaults": {"maxTokens": 99999999999}}})",
     "agents.defaults.maxTokens", "is too large"},
    {R"({"agents": {"defaults": {"model": ""}}})", "agents.defaults.model",
     "must not be empty"},
    {R"({"tools": {"restrictToWorkspace": "SECRET"}})",
     "tools.restrictToWorkspace", "expected a boolean, found a string"},
    {R"({"tools": {"exec": {"denyPatterns": ["ok", 7]}}})",
     "tools.exec.denyPatterns[1]", "expected a string, found an integer"},
    {R"({"providers": {"x": {"extraHeaders": {"Authorization": 5}}}})",
     "providers.x.extraHeaders.Authorization", "expected a string"},
    {R"({"providers": {"x": "SECRET"}})", "providers.x",
     "expected an object, found a string"},
    {R"({"agents": 5})", "agents", "expected an object, found an integer"},
    {R"({"gateway": {"toolWorkers": 0}})", "gateway.toolWorkers",
     "must be between 1 and 256"},
    {R"({"gateway": {"sessionIdleSeconds": 0}})",
     "gateway.sessionIdleSeconds", "must be at least 1"},
    {R"({"agents": {"defaults": {"maxConcurrentSubagents": 0}}})",
     "agents.defaults.maxConcurrentSubagents", "must be between 1 and 64"},
    {R"({"agents": {"defaults": {"sessionTtlMinutes": -1}}})",
     "agents.defaults.sessionTtlMinutes", "must be between 0 and"},
    {R"({"agents": {"defaults": {"failOnToolError": "SECRET"}}})",
     "agents.defaults.failOnToolError", "expected a boolean, found a string"},
  };
  for (const auto& r : rows) {
    auto text = r.json;
    for (auto pos = text.find("SECRET"); pos != text.npos;
         pos = text.find("SECRET", pos + secret.size()))
      text.replace(pos, 6, secret);
    CAPTURE(r.json);
    auto e = err(parse(text));
    CHECK(e.key_path == r.key_path);
    CHECK(contains(e.reason, r.reason));
    CHECK(contains(e.message(), "config error at " + r.key_path + ": "));
    CHECK_FALSE(contains(e.message(), secret));
  }
}

TEST_CASE("every key is accepted in camelCase and in snake_case") {
  const std::string camel = R"({
    "agents": {"defaults": {"workspace": "/w", "model": "openai/gpt-4o",
      "provider": "openai", "maxTokens": 1000, "temperature": 0.7,
      "maxToolIterations": 7, "contextWindowTokens": 32000}},
    "providers": {"openai": {"apiKey": "k1", "apiBase": "http://h/v1",
      "extraHeaders": {"X-A": "1"}}},
    "tools": {"restrictToWorkspace": false, "exec": {"enable": false,
      "timeout": 30, "denyPatterns": ["rm"], "pathAppend": "/opt/bin"}},
    "api": {"host": "127.0.0.1", "port": 9000, "apiKey": "a", "timeout": 45},
    "gateway": {"host": "127.0.0.1", "port": 19000, "schedulerThreads": 3,
      "providerWorkers": 5, "toolWorkers": 6, "drainSeconds": 4,
      "httpThreads": 9, "sessionIdleSeconds": 77}})";
  const std::string snake = R"({
    "agents": {"defaults": {"workspace": "/w", "model": "openai/gpt-4o",
      "provider": "openai", "max_tokens": 1000, "temperature": 0.7,
      "max_tool_iterations": 7, "context_window_tokens": 32000}},
    "providers": {"openai": {"api_key": "k1", "api_base": "http://h/v1",
      "extra_headers": {"X-A": "1"}}},
    "tools": {"restrict_to_workspace": false, "exec": {"enable": false,
      "timeout": 30, "deny_patterns": ["rm"], "path_append": "/opt/bin"}},
    "api": {"host": "127.0.0.1", "port": 9000, "api_key": "a", "timeout": 45},
    "gateway": {"host": "127.0.0.1", "port": 19000, "scheduler_threads": 3,
      "provider_workers": 5, "tool_workers": 6, "drain_seconds": 4,
      "http_threads": 9, "session_idle_seconds": 77}})";
  for (const auto& text : {camel, snake}) {
    auto l = ok(parse(text));
    const auto& s = l.value;
    CHECK(l.warnings.empty());
    CHECK(s.agent.workspace == "/w");
    CHECK(s.agent.model == "openai/gpt-4o");
    CHECK(s.agent.provider == "openai");
    CHECK(s.agent.max_tokens == 1000);
    CHECK(s.agent.temperature == doctest::Approx(0.7));
    CHECK(s.agent.max_tool_iterations == 7);
    CHECK(s.agent.context_window_tokens == 32000);
    REQUIRE(s.providers.count("openai") == 1);
    CHECK(s.providers.at("openai").api_key == "k1");
    CHECK(s.providers.at("openai").api_base == "http://h/v1");
    CHECK(s.providers.at("openai").extra_headers.at("X-A") == "1");
    CHECK_FALSE(s.tools.restrict_to_workspace);
    CHECK_FALSE(s.tools.exec.enable);
    CHECK(s.tools.exec.timeout_s == 30);
    CHECK(s.tools.exec.deny_patterns == std::vector<std::string>{"rm"});
    CHECK(s.tools.exec.path_append == "/opt/bin");
    CHECK(s.api.port == 9000);
    CHECK(s.api.api_key == "a");
    CHECK(s.api.timeout_s == 45);
    CHECK(s.gateway.port == 19000);
    CHECK(s.gateway.scheduler_threads == 3);
    CHECK(s.gateway.provider_workers == 5);
    CHECK(s.gateway.tool_workers == 6);
    CHECK(s.gateway.drain_s == 4);
    CHECK(s.gateway.http_threads == 9);
    CHECK(s.gateway.session_idle_s == 77);
  }
}

TEST_CASE("both spellings of one key warn and camelCase wins") {
  auto l = ok(parse(R"({"agents": {"defaults":
                         {"maxTokens": 10, "max_tokens": 20}}})"));
  CHECK(l.value.agent.max_tokens == 10);
  CHECK(any_contains(l.warnings, "both agents.defaults.maxTokens and "
                                 "agents.defaults.max_tokens"));
}

TEST_CASE("provider names: built-in aliases fold and custom names stay") {
  auto l = ok(parse(R"({"providers": {"azureOpenai": {"apiKey": "a"},
                        "myProxy": {"apiBase": "http://p"}, "vllm": {}}})"));
  const auto& p = l.value.providers;
  CHECK(p.at("azure_openai").api_key == "a");
  CHECK(p.at("myProxy").api_base == "http://p");
  CHECK(p.count("vllm") == 1);
  CHECK(l.warnings.empty());
}

TEST_CASE("null means not set and fractional seconds round up") {
  auto l = ok(parse(R"({"providers": {"openai": {"apiBase": null}},
                        "agents": {"defaults": {"maxTokens": 512.0}},
                        "api": {"timeout": 2.5}})"));
  CHECK(l.value.providers.at("openai").api_base.empty());
  CHECK(l.value.agent.max_tokens == 512);
  CHECK(l.value.api.timeout_s == 3);
}

TEST_CASE("api.host off loopback requires api.apiKey") {
  for (auto host : {"0.0.0.0", "192.168.1.5", "::", "example.com"}) {
    CAPTURE(host);
    auto text = std::string{R"({"api": {"host": ")"} + host + "\"}}";
    auto e = err(parse(text));
    CHECK(e.key_path == "api.host");
    CHECK(contains(e.reason, "api.apiKey"));
    auto with_key = std::string{R"({"api": {"apiKey": "k", "host": ")"} + host
                    + "\"}}";
    CHECK(ok(parse(with_key)).value.api.host == host);
  }
  for (auto host : {"127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost",
                    "LOCALHOST", "::ffff:127.0.0.1"}) {
    CAPTURE(host);
    CHECK(is_loopback_host(host));
    auto text = std::string{R"({"api": {"host": ")"} + host + "\"}}";
    CHECK(ok(parse(text)).value.api.host == host);
  }
  for (auto host : {"128.0.0.1", "0.0.0.0", "", "localhost.evil.com", "::2",
                    "127.0.0.1.nip.io"})
    CHECK_FALSE(is_loopback_host(host));
}

TEST_CASE("risky combinations are warned about (H9)") {
  auto l = ok(parse(R"({"tools": {"restrictToWorkspace": false},
                        "gateway": {"host": "0.0.0.0"}})"));
  CHECK(any_contains(l.warnings, "tools.restrictToWorkspace is off"));
  CHECK(any_contains(l.warnings, "gateway.host is not a loopback address"));
  auto safe = ok(parse(R"({"tools": {"restrictToWorkspace": false,
                           "exec": {"enable": false}}})"));
  CHECK(safe.warnings.empty());
}

TEST_CASE("the legacy tools.exec.restrictToWorkspace moves up") {
  auto l = ok(parse(R"({"tools": {"exec": {"restrictToWorkspace": false,
                                           "enable": false}}})"));
  CHECK_FALSE(l.value.tools.restrict_to_workspace);
  CHECK(l.warnings.empty());
  CHECK(any_contains(l.notices, "legacy"));
  auto both = ok(parse(R"({"tools": {"restrictToWorkspace": true,
                  "exec": {"restrict_to_workspace": false}}})"));
  CHECK(both.value.tools.restrict_to_workspace);
}

TEST_CASE("null for a number or a switch is an error naming the key") {
  for (auto [text, key] :
       {std::pair{R"({"gateway": {"port": null}})", "gateway.port"},
        std::pair{R"({"api": {"timeout": null}})", "api.timeout"},
        std::pair{R"({"tools": {"restrictToWorkspace": null}})",
                  "tools.restrictToWorkspace"}}) {
    CAPTURE(text);
    auto e = err(parse(text));
    CHECK(e.key_path == key);
    CHECK(contains(e.reason, "found null"));
    CHECK(contains(e.reason, "remove the key to use the default"));
  }
}

TEST_CASE("an exec pattern that does not compile is refused at load") {
  auto e = err(parse(R"({"tools": {"exec": {"denyPatterns": ["ok", "rm (-rf"]}}})"));
  CHECK(e.key_path == "tools.exec.denyPatterns[1]");
  CHECK(contains(e.reason, "'rm (-rf' is not a valid regular expression"));
  auto a = err(parse(R"({"tools": {"exec": {"allowPatterns": ["[a-"]}}})"));
  CHECK(a.key_path == "tools.exec.allowPatterns[0]");
  CHECK(ok(parse(R"({"tools": {"exec": {"denyPatterns": ["\\bcurl\\b", "(?:a|b)\\d+"]}}})"))
          .value.tools.exec.deny_patterns.size() == 2);
}

TEST_CASE("a pattern whose repetitions would blow up is refused, not compiled") {
  // Found by fuzz_config: regcomp copies the repeated part for every '+'
  // and every count of a bound, so 27 stacked '+' took gigabytes.
  CHECK(expanded_size("rm\\s+-rf") < 20);
  CHECK(expanded_size("(a|b){3}[[:alpha:]]+x") < 50);
  CHECK(expanded_size("a+++++++++++++++++++++++++++") > max_expanded_size);
  CHECK(expanded_size("((a{100}){100}){100}") > max_expanded_size);
  auto e = err(parse(R"({"tools": {"exec": {"denyPatterns": ["rm +++++++++++++++++++++++++++-rf"]}}})"));
  CHECK(e.key_path == "tools.exec.denyPatterns[0]");
  CHECK(contains(e.reason, "too complex"));
  CHECK(ok(parse(R"({"tools": {"exec": {"denyPatterns": ["\\b(mkfs|diskpart)\\b", "dd\\s+if="]}}})"))
          .value.tools.exec.deny_patterns.size() == 2);
}

TEST_CASE("the exec sandbox keys are read and a wrong word names its key") {
  auto good = ok(parse(R"({"tools": {"exec": {"sandbox": "bwrap",
    "network": "none", "sandboxRoBinds": ["/opt/data"],
    "sandboxRwBinds": ["~/scratch"]}}})")).value.tools.exec;
  CHECK(good.sandbox == "bwrap");
  CHECK(good.network == "none");
  CHECK(good.sandbox_ro_binds == std::vector<std::string>{"/opt/data"});
  CHECK(good.sandbox_rw_binds == std::vector<std::string>{"~/scratch"});
  CHECK(ok(parse("{}")).value.tools.exec.network == "loopback-denied");
  auto net = err(parse(R"({"tools": {"exec": {"network": "internet"}}})"));
  CHECK(net.key_path == "tools.exec.network");
  CHECK(contains(net.reason, "'internet' is not one of"));
  auto kind = err(parse(R"({"tools": {"exec": {"sandbox": "docker"}}})"));
  CHECK(kind.key_path == "tools.exec.sandbox");
  CHECK(contains(kind.reason, "\"bwrap\""));
  auto bind = err(parse(R"({"tools": {"exec": {"sandboxRwBinds": ["/ok", "data"]}}})"));
  CHECK(bind.key_path == "tools.exec.sandboxRwBinds[1]");
  CHECK(contains(bind.reason, "not an absolute path"));
}

TEST_CASE("a byte-order mark is an error naming where it is") {
  auto start = err(parse("\xEF\xBB\xBF{\"gateway\": {\"port\": 1}}"));
  CHECK(contains(start.reason, "byte-order mark"));
  CHECK(contains(start.reason, "without BOM"));
  auto key = err(parse("{\"gateway\": {\"\xEF\xBB\xBFport\": 1}}"));
  CHECK(key.key_path == "gateway.<U+FEFF>port");
  CHECK(contains(key.reason, "byte-order mark"));
  auto value = err(parse("{\"providers\": {\"x\": {\"apiKey\": \"\xEF\xBB\xBFsk\"}}}"));
  CHECK(value.key_path == "providers.x.apiKey");
}
