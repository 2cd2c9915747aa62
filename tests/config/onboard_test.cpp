// Onboarding into a temp dir: everything created once, nothing ever
// overwritten; the config is 0600 and loads cleanly; templates embedded.
#include <sys/stat.h>

#include <algorithm>

#include "config/atomic_file.hpp"
#include "config/onboard.hpp"
#include "config/to_json.hpp"
#include "nb_test_paths.hpp" // NB_SOURCE_DIR, NB_BINARY_DIR
#include "tests/config/helpers.hpp"

using namespace nb;
using namespace nb::test;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> expected_files = {
  "AGENTS.md",     "SOUL.md",         "USER.md",
  "TOOLS.md",      "IDENTITY.md",     "HEARTBEAT.md",
  "memory/MEMORY.md", "memory/history.jsonl"};

unsigned mode_of(const std::string& path) {
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

bool listed(const std::vector<std::string>& paths, const std::string& p) {
  return std::find(paths.begin(), paths.end(), p) != paths.end();
}

} // namespace

TEST_CASE("the templates are embedded and match workspace/") {
  const auto& tpls = workspace_templates();
  for (auto name : {"AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md",
                    "IDENTITY.md", "HEARTBEAT.md", "memory/MEMORY.md"}) {
    CAPTURE(name);
    auto it = std::find_if(tpls.begin(), tpls.end(),
                           [&](const auto& t) { return t.path == name; });
    REQUIRE(it != tpls.end());
    CHECK_FALSE(it->content.empty());
    CHECK(it->content
          == read_text(std::string{NB_SOURCE_DIR} + "/workspace/" + name));
  }
  auto heartbeat = std::find_if(tpls.begin(), tpls.end(), [](const auto& t) {
    return t.path == "HEARTBEAT.md";
  });
  CHECK(contains(heartbeat->content, "## Active Tasks"));
}

TEST_CASE("onboarding creates the config and the whole workspace") {
  temp_dir dir;
  auto config = dir.path + "/home/.nanobot/config.json";
  auto ws = dir.path + "/ws";
  auto report = onboard(config, ws, env_of());
  for (const auto& e : report.errors)
    FAIL(e);
  CHECK(report.ok());
  CHECK(report.config_path == config);
  CHECK(report.workspace == ws);
  CHECK(listed(report.created, config));
  CHECK(mode_of(config) == 0600);
  CHECK(mode_of(dir.path + "/home/.nanobot") == 0700);
  for (const auto& f : expected_files) {
    CAPTURE(f);
    CHECK(fs::is_regular_file(ws + "/" + f));
    CHECK(listed(report.created, ws + "/" + f));
  }
  CHECK(fs::file_size(ws + "/memory/history.jsonl") == 0);
  CHECK(fs::is_directory(ws + "/skills"));
  CHECK(listed(report.created, ws + "/skills"));
  CHECK(report.kept.empty());
  // No temp files left behind.
  for (const auto& entry : fs::directory_iterator{dir.path + "/home/.nanobot"})
    CHECK(entry.path().filename() == "config.json");

  // The written config is camelCase, loads without a warning and names the
  // workspace it was made with.
  auto text = read_text(config);
  CHECK(contains(text, "\"maxToolIterations\": 20"));
  CHECK(contains(text, "\"restrictToWorkspace\": true"));
  auto loaded = ok(load_settings(config, env_of()));
  CHECK(loaded.warnings.empty());
  CHECK(loaded.value.workspace_path() == ws);
  CHECK(loaded.value.providers.count("openrouter") == 1);
}

TEST_CASE("a second onboarding overwrites nothing") {
  temp_dir dir;
  auto config = dir.path + "/cfg/config.json";
  auto ws = dir.path + "/ws";
  REQUIRE(onboard(config, ws, env_of()).ok());

  write_text(ws + "/SOUL.md", "my own soul\n");
  write_text(ws + "/memory/history.jsonl", "{\"cursor\": 1}\n");
  auto custom_config = read_text(config);
  auto pos = custom_config.find("anthropic/claude-opus-4-5");
  REQUIRE(pos != std::string::npos);
  custom_config.replace(pos, 25, "openai/gpt-4o");
  write_text(config, custom_config);
  REQUIRE(::chmod(config.c_str(), 0640) == 0);
  fs::remove(ws + "/USER.md");

  auto again = onboard(config, "", env_of());
  CHECK(again.ok());
  CHECK(again.workspace == ws); // taken from the existing config
  CHECK(read_text(ws + "/SOUL.md") == "my own soul\n");
  CHECK(read_text(ws + "/memory/history.jsonl") == "{\"cursor\": 1}\n");
  CHECK(read_text(config) == custom_config);
  CHECK(mode_of(config) == 0640);
  REQUIRE(again.created.size() == 1);
  CHECK(again.created[0] == ws + "/USER.md");
  CHECK(listed(again.kept, config));
  CHECK(listed(again.kept, ws + "/SOUL.md"));
  CHECK(listed(again.kept, ws + "/skills"));
}

TEST_CASE("onboarding refuses to guess the workspace of a broken config") {
  temp_dir dir;
  auto config = dir.path + "/config.json";
  write_text(config, "{broken");
  auto report = onboard(config, "", env_of());
  CHECK_FALSE(report.ok());
  CHECK(any_contains(report.errors, "invalid JSON"));
  CHECK(read_text(config) == "{broken");

  auto forced = onboard(config, dir.path + "/ws", env_of());
  CHECK(forced.ok());
  CHECK(fs::is_regular_file(dir.path + "/ws/AGENTS.md"));
}

TEST_CASE("a relative workspace is recorded as an absolute path") {
  temp_dir dir;
  auto old_cwd = fs::current_path();
  fs::current_path(dir.path);
  auto report = onboard("conf/config.json", "rel-ws", env_of());
  fs::current_path(old_cwd);
  CHECK(report.ok());
  CHECK(report.workspace == dir.path + "/rel-ws");
  auto loaded = ok(load_settings(dir.path + "/conf/config.json", env_of()));
  CHECK(loaded.value.agent.workspace == dir.path + "/rel-ws");
}

TEST_CASE("atomic writes create once and replace keeping the mode") {
  temp_dir dir;
  auto path = dir.path + "/f.txt";
  CHECK(create_file_atomic(path, "one", 0600).outcome
        == write_outcome::written);
  CHECK(mode_of(path) == 0600);
  CHECK(create_file_atomic(path, "two", 0644).outcome == write_outcome::kept);
  CHECK(read_text(path) == "one");
  REQUIRE(::chmod(path.c_str(), 0640) == 0);
  CHECK(replace_file_atomic(path, "three", 0600).outcome
        == write_outcome::written);
  CHECK(read_text(path) == "three");
  CHECK(mode_of(path) == 0640);
  auto bad = create_file_atomic(dir.path + "/no/such/dir/f", "x", 0600);
  CHECK(bad.outcome == write_outcome::failed);
  CHECK(contains(bad.error, "/no/such/dir/f"));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator{dir.path})
    ++entries;
  CHECK(entries == 1);
}

TEST_CASE("the default settings round-trip through config.json form") {
  settings s;
  s.providers["custom"].api_base = "http://localhost:8000/v1";
  s.providers["custom"].extra_headers["X-Team"] = "a";
  s.tools.exec.deny_patterns = {"shutdown"};
  auto l = ok(parse(to_config_json(s).dump()));
  CHECK(l.warnings.empty());
  CHECK(to_config_json(l.value) == to_config_json(s));
}
