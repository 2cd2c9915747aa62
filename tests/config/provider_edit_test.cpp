// The WebUI setup's config writer on real files: the provider lands in the
// user's config.json, which stays loadable, keeps every key it had (unknown
// ones too, in their order and spelling), becomes 0600, and is replaced
// atomically (a new inode; a reader of the old file still sees it whole).
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "config/config_save.hpp"
#include "config/provider_edit.hpp"
#include "tests/config/helpers.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;
namespace fs = std::filesystem;

namespace {

const char* user_file = R"({
  "myNotes": {"keep": ["me", 1, true], "nested": {"x": null}},
  "agents": {"defaults": {"workspace": "/tmp/ws", "max_tokens": 1234}},
  "providers": {"custom": {"api_key": "old-key", "extra_headers": {"X-A": "b"}}},
  "channels": {"websocket": {"enabled": true, "port": 18765}},
  "zzUnknownAtTheEnd": 42
}
)";

struct stat stat_of(const std::string& path) {
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st;
}

std::string applied(std::string_view current, const provider_setup& s) {
  auto r = apply_provider_setup(current, s);
  if (auto* e = std::get_if<config_error>(&r))
    FAIL("unexpected error: " << e->message());
  return std::get<std::string>(r);
}

} // namespace

TEST_CASE("setup writes the provider and keeps the user's keys") {
  scratch_dir dir;
  auto path = dir.at("config.json");
  write_all(path, user_file);
  ::chmod(path.c_str(), 0644);
  auto before = stat_of(path);
  // A reader that opened the old file before the save.
  std::ifstream old_reader{path};

  provider_setup s{"custom", "http://127.0.0.1:9/v1", "new-key", "fake-model"};
  auto text = applied(read_all(path), s);
  auto w = save_config_text(path, text);
  REQUIRE_MESSAGE(w.outcome == write_outcome::written, w.error);

  auto after = stat_of(path);
  CHECK((after.st_mode & 0777) == 0600);
  CHECK(after.st_ino != before.st_ino); // renamed into place, not rewritten
  std::ostringstream old_text;
  old_text << old_reader.rdbuf();
  CHECK(old_text.str() == user_file);
  for (auto& e : fs::directory_iterator(dir.path))
    CHECK_MESSAGE(e.path().filename() == "config.json",
                  "left behind: " << e.path());

  auto j = nlohmann::ordered_json::parse(read_all(path));
  CHECK(j["myNotes"] == nlohmann::ordered_json::parse(
                          R"({"keep": ["me", 1, true], "nested": {"x": null}})"));
  CHECK(j["zzUnknownAtTheEnd"] == 42);
  CHECK(j["channels"]["websocket"]["port"] == 18765);
  std::vector<std::string> order;
  for (auto it = j.begin(); it != j.end(); ++it)
    order.push_back(it.key());
  CHECK(order == std::vector<std::string>{"myNotes", "agents", "providers",
                                          "channels", "zzUnknownAtTheEnd"});
  auto& custom = j["providers"]["custom"];
  CHECK(custom["api_key"] == "new-key"); // the user's spelling is kept
  CHECK_FALSE(custom.contains("apiKey"));
  CHECK(custom["apiBase"] == "http://127.0.0.1:9/v1");
  CHECK(custom["extra_headers"]["X-A"] == "b");
  CHECK(j["agents"]["defaults"]["max_tokens"] == 1234);

  // The loader reads it back as the gateway will.
  auto cfg = ok(load_settings(path, env_of())).value;
  CHECK(cfg.agent.model == "fake-model");
  CHECK(cfg.agent.provider == "custom");
  CHECK(cfg.agent.max_tokens == 1234);
  CHECK(cfg.providers.at("custom").api_key == "new-key");
  CHECK(cfg.providers.at("custom").api_base == "http://127.0.0.1:9/v1");
}

TEST_CASE("an empty key keeps the saved one and an empty base drops it") {
  auto text = applied(user_file, {"custom", "http://h:1/v1", "", "m"});
  auto j = nlohmann::json::parse(text);
  CHECK(j["providers"]["custom"]["api_key"] == "old-key");
  text = applied(text, {"custom", "", "", "m2"});
  j = nlohmann::json::parse(text);
  CHECK_FALSE(j["providers"]["custom"].contains("apiBase"));
  CHECK(j["providers"]["custom"]["api_key"] == "old-key");
  CHECK(j["agents"]["defaults"]["model"] == "m2");
}

TEST_CASE("a provider spelled another way is the same entry") {
  auto text = applied(R"({"providers": {"lmStudio": {"apiKey": "k"}}})",
                      {"lm_studio", "", "", "qwen"});
  auto j = nlohmann::json::parse(text);
  CHECK(j["providers"].size() == 1);
  CHECK(j["providers"]["lmStudio"]["apiKey"] == "k");
  CHECK(j["agents"]["defaults"]["provider"] == "lm_studio");
}

TEST_CASE("no file yet: a new 0600 file that loads") {
  scratch_dir dir;
  auto path = dir.at("config.json");
  auto text = applied("", {"openrouter", "", "sk-or-x", "openai/gpt-4o"});
  auto w = save_config_text(path, text);
  REQUIRE(w.outcome == write_outcome::written);
  CHECK((stat_of(path).st_mode & 0777) == 0600);
  auto cfg = ok(load_settings(path, env_of())).value;
  CHECK(cfg.agent.provider == "openrouter");
  CHECK(cfg.providers.at("openrouter").api_key == "sk-or-x");
}

TEST_CASE("a symlinked config is written where the link points") {
  scratch_dir dir;
  write_all(dir.at("real/config.json"), "{}");
  fs::create_symlink(dir.at("real/config.json"), dir.at("config.json"));
  auto w = save_config_text(dir.at("config.json"),
                            applied("{}", {"custom", "http://h/v1", "", "m"}));
  REQUIRE(w.outcome == write_outcome::written);
  CHECK(fs::is_symlink(dir.at("config.json")));
  CHECK(read_all(dir.at("real/config.json")).find("http://h/v1")
        != std::string::npos);
}

TEST_CASE("what is in the way is named") {
  auto bad = [](std::string_view current, provider_setup s) {
    auto r = apply_provider_setup(current, s);
    REQUIRE(std::holds_alternative<config_error>(r));
    return std::get<config_error>(r);
  };
  CHECK(bad(R"({"providers": []})", {"custom", "", "", "m"}).key_path
        == "providers");
  CHECK(bad(R"({"agents": {"defaults": 3}})", {"custom", "", "", "m"}).key_path
        == "agents.defaults");
  CHECK(bad(R"({"providers": {"custom": "x"}})", {"custom", "", "", "m"})
          .key_path == "providers.custom");
  CHECK(bad("{}", {"custom", "", "", ""}).key_path == "agents.defaults.model");
  CHECK(bad("{}", {"a b", "", "", "m"}).key_path == "agents.defaults.provider");
  CHECK(bad("{ // a comment\n}", {"custom", "", "", "m"}).reason.find("not valid JSON")
        != std::string::npos);
}
