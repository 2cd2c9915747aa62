// `nanobot provider login|logout NAME`: the key from stdin into config.json,
// the rest of the file kept.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "tests/cli/cli_home.hpp"

using namespace nb::test;

TEST_CASE("provider login stores an API key and logout removes it") {
  cli_home h;
  auto r = h.nanobot({"provider", "login", "openrouter"}, {}, "sk-or-123\n");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(has(r.out, "Saved the API key for openrouter"));
  auto cfg = nlohmann::json::parse(read_all(h.config));
  CHECK(cfg["providers"]["openrouter"]["apiKey"] == "sk-or-123");
  CHECK(cfg["api"]["port"] == h.api_port); // the rest stays
  CHECK_FALSE(cfg["agents"]["defaults"].contains("provider"));
  struct stat st {};
  REQUIRE(::stat(h.config.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  // The key never shows in the output.
  CHECK_FALSE(has(r.out + r.err, "sk-or-123"));

  r = h.nanobot({"provider", "login", "deepseek", "--set-main"}, {}, "sk-ds\n");
  CHECK(r.code == 0);
  cfg = nlohmann::json::parse(read_all(h.config));
  CHECK(cfg["agents"]["defaults"]["provider"] == "deepseek");
  CHECK(cfg["providers"]["deepseek"]["apiKey"] == "sk-ds");

  r = h.nanobot({"provider", "logout", "openrouter"});
  CHECK(r.code == 0);
  cfg = nlohmann::json::parse(read_all(h.config));
  CHECK_FALSE(cfg["providers"]["openrouter"].contains("apiKey"));
  CHECK(cfg["providers"]["deepseek"]["apiKey"] == "sk-ds");
  r = h.nanobot({"provider", "logout", "openrouter"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "No API key for openrouter"));
}

TEST_CASE("provider login refuses OAuth providers, typos and empty keys") {
  cli_home h;
  auto before = read_all(h.config);
  auto r = h.nanobot({"provider", "login", "openai-codex"}, {}, "x\n");
  CHECK(r.code == 1);
  CHECK(has(r.err, "OAuth"));
  r = h.nanobot({"provider", "login", "openroutr"}, {}, "x\n");
  CHECK(r.code == 2);
  CHECK(has(r.err, "did you mean 'openrouter'?"));
  r = h.nanobot({"provider", "login", "openrouter"}, {}, "\n");
  CHECK(r.code == 1);
  CHECK(has(r.err, "no API key given"));
  CHECK(read_all(h.config) == before);
}
