// Loading: missing file, broken JSON (H1), non-object roots (H2), real
// files, derived paths and fuzzed input (H10).
#include <random>

#include "tests/config/helpers.hpp"

using namespace nb;
using namespace nb::test;

TEST_CASE("a missing config file means built-in defaults and a notice") {
  temp_dir dir;
  auto path = dir.path + "/absent/config.json";
  auto loaded = ok(load_settings(path, env_of()));
  CHECK(loaded.value.config_path == path);
  CHECK(loaded.value.agent.model == "anthropic/claude-opus-4-5");
  CHECK(loaded.value.agent.max_tool_iterations == 200); // the original's
  CHECK(loaded.value.agent.context_window_tokens == 200000);
  CHECK(loaded.value.tools.restrict_to_workspace);
  CHECK(loaded.value.api.port == 8900);
  CHECK(loaded.value.gateway.port == 18790);
  CHECK(loaded.value.providers.empty());
  CHECK(loaded.warnings.empty());
  CHECK(any_contains(loaded.notices, "built-in defaults"));
}

TEST_CASE("broken JSON fails fast with line and column (H1)") {
  auto e = err(parse("{broken json"));
  CHECK(e.key_path.empty());
  CHECK(contains(e.message(), "invalid JSON"));
  CHECK(contains(e.message(), "line 1, column 2"));
  CHECK(contains(e.message(), "/tmp/test-config.json"));

  auto later = err(parse("{\n  \"agents\": {\n    \"defaults\": {,\n  }\n}"));
  CHECK(contains(later.message(), "line 3"));

  auto empty = err(parse(""));
  CHECK(contains(empty.message(), "invalid JSON"));
}

TEST_CASE("a parse error never quotes the text it choked on") {
  auto secret = std::string{"sk-or-v1-a9f3c0ffee1234567890"};
  for (auto text : {"{\"providers\": {\"x\": {\"apiKey\": \"" + secret,
                    "{\"apiKey\": " + secret + "}",
                    "{\"n\": 1e99999, \"k\": \"" + secret + "\"}"}) {
    auto e = err(parse(text));
    CHECK_FALSE(contains(e.message(), secret));
    CHECK_FALSE(contains(e.message(), "a9f3c0ffee"));
  }
}

TEST_CASE("a root that is not an object is refused (H2)") {
  struct row {
    const char* text;
    const char* found;
  };
  for (auto r : {row{"[]", "found an array"}, row{"null", "found null"},
                 row{"\"x\"", "found a string"}, row{"42", "found an integer"},
                 row{"true", "found a boolean"}}) {
    CAPTURE(r.text);
    auto e = err(parse(r.text));
    CHECK(contains(e.message(), "expected an object"));
    CHECK(contains(e.message(), r.found));
  }
}

TEST_CASE("a config file on disk is read and its path recorded") {
  temp_dir dir;
  auto path = dir.path + "/config.json";
  write_text(path, R"({"agents": {"defaults": {"model": "openai/gpt-4o",
                       "workspace": "/srv/ws"}}})");
  auto loaded = ok(load_settings(path, env_of()));
  CHECK(loaded.value.agent.model == "openai/gpt-4o");
  CHECK(loaded.value.config_path == path);
  CHECK(loaded.value.config_dir() == dir.path);
  CHECK(loaded.value.workspace_path() == "/srv/ws");
  CHECK(loaded.notices.empty());

  auto e = err(load_settings(dir.path, env_of()));
  CHECK(contains(e.message(), "is a directory"));
}

TEST_CASE("workspace_path expands the home directory and is absolute") {
  const char* home = getenv("HOME");
  REQUIRE(home != nullptr);
  settings s;
  CHECK(s.workspace_path() == std::string{home} + "/.nanobot/workspace");
  s.agent.workspace = "~";
  CHECK(s.workspace_path() == std::filesystem::path{home}.lexically_normal()
                                .string());
  s.agent.workspace = "rel/ws/";
  auto cwd = std::filesystem::current_path().string();
  CHECK(s.workspace_path() == cwd + "/rel/ws");
  s.agent.workspace = "/a/b/../c";
  CHECK(s.workspace_path() == "/a/c");
  s.config_path = "conf/config.json";
  CHECK(s.config_dir() == cwd + "/conf");
  s.config_path = "~/.nanobot/config.json";
  CHECK(s.config_dir() == std::string{home} + "/.nanobot");
}

TEST_CASE("fuzzed config bytes never crash or throw (H10)") {
  const std::string seed_text = R"({
    "agents": {"defaults": {"model": "m", "maxTokens": 100,
               "temperature": 0.5, "workspace": "${HOME}/ws"}},
    "providers": {"openrouter": {"apiKey": "k", "extraHeaders": {"a": "b"}}},
    "tools": {"restrictToWorkspace": true,
              "exec": {"timeout": 5, "denyPatterns": ["x"]}},
    "api": {"host": "127.0.0.1", "port": 8900},
    "gateway": {"port": 18790, "toolWorkers": 4},
    "channels": {"telegram": {"enabled": false}}
  })";
  std::mt19937 rng{12345};
  const std::string alphabet = "{}[]\":,0123456789.-eE ntrufals${}\\";
  size_t errors = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = seed_text;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < edits; ++i) {
      size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[pos] = alphabet[rng() % alphabet.size()]; break;
        case 1: text.erase(pos, 1 + rng() % 8); break;
        default: text.insert(pos, 1, static_cast<char>(rng() % 256)); break;
      }
    }
    auto result = parse(text, {{"HOME", "/home/x"}});
    errors += std::holds_alternative<config_error>(result) ? 1 : 0;
  }
  CHECK(errors > 0);

  // Deep nesting: the parser and the walk must not recurse per level.
  std::string deep = "{\"transcription\": " + std::string(200000, '[')
                     + std::string(200000, ']') + "}";
  CHECK(std::holds_alternative<loaded_settings>(parse(deep)));
  std::string channel_deep = "{\"channels\": {\"x\": {\"a\": "
                             + std::string(200000, '[')
                             + std::string(200000, ']') + "}}}";
  CHECK(std::holds_alternative<config_error>(parse(channel_deep)));
  std::string unknown_deep = "{\"zzz\": " + std::string(200000, '[') + "}";
  CHECK(std::holds_alternative<config_error>(parse(unknown_deep)));

  std::string noise;
  for (int i = 0; i < 4096; ++i)
    noise += static_cast<char>(rng() % 256);
  CHECK(std::holds_alternative<config_error>(parse(noise)));
}
