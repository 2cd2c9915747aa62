// The workspace actor's answers to the WebUI (issue 20, parts 4 and 5),
// against real files: HEARTBEAT.md and MEMORY.md read and replaced (an
// edit based on an older version is refused, the file untouched), the
// evaluator prompt in effect, the skills with the programs and variables
// they lack, a SKILL.md, and history.jsonl paged newest first.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/memory/history_file.hpp"
#include "actors/workspace/workspace.hpp"
#include "messages/type_ids.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;
using json = nlohmann::json;

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in{p};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct files_env {
  temp_home home;
  std::filesystem::path dir = home.dir / "ws";
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  workspace_admin_actor ws;

  files_env() {
    std::filesystem::create_directories(dir);
    register_messages(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
    ws = spawn_workspace(*sys, {"main", dir.string()}, {});
  }
  ~files_env() {
    caf::anon_send_exit(ws, caf::exit_reason::user_shutdown);
  }

  /// The reply, or the error's text in `error`.
  template <class Reply, class... Ts>
  Reply ask(std::string* error, Ts&&... xs) {
    caf::scoped_actor self{*sys};
    Reply out{};
    self->request(ws, std::chrono::seconds(10), std::forward<Ts>(xs)...)
      .receive([&](Reply& r) { out = std::move(r); },
               [&](caf::error& err) {
                 if (error)
                   *error = caf::to_string(err.context());
                 else
                   FAIL(sys->render(err));
               });
    return out;
  }
};

} // namespace

TEST_CASE("HEARTBEAT.md: created, replaced, and a stale edit refused") {
  files_env env;
  auto none = env.ask<workspace_text>(nullptr, workspace_read{"HEARTBEAT.md"});
  CHECK(none.origin == "missing");
  CHECK(none.version.empty());

  auto first = env.ask<workspace_text>(
    nullptr, workspace_write{"HEARTBEAT.md", "## Active Tasks\n- water\n", ""});
  CHECK(first.origin == "file");
  CHECK(slurp(env.dir / "HEARTBEAT.md") == "## Active Tasks\n- water\n");

  // The agent rewrites the file meanwhile: the page's older edit is refused.
  write_all(env.dir / "HEARTBEAT.md", "## Active Tasks\n- written by the agent\n");
  std::string error;
  env.ask<workspace_text>(&error, workspace_write{"HEARTBEAT.md", "mine",
                                                  first.version});
  CHECK(error.find("changed since it was loaded") != std::string::npos);
  CHECK(slurp(env.dir / "HEARTBEAT.md")
        == "## Active Tasks\n- written by the agent\n");

  auto now = env.ask<workspace_text>(nullptr, workspace_read{"HEARTBEAT.md"});
  auto second = env.ask<workspace_text>(
    nullptr, workspace_write{"HEARTBEAT.md", "# nothing to do\n", now.version});
  CHECK(second.version != now.version);
  CHECK(slurp(env.dir / "HEARTBEAT.md") == "# nothing to do\n");
}

TEST_CASE("MEMORY.md: replaced under the memory lock, read back") {
  files_env env;
  write_all(env.dir / "memory" / "MEMORY.md", "- likes tea\n");
  auto mem = env.ask<workspace_text>(nullptr,
                                     workspace_read{"memory/MEMORY.md"});
  CHECK(mem.text == "- likes tea\n");
  env.ask<workspace_text>(nullptr,
                          workspace_write{"memory/MEMORY.md",
                                          "- likes green tea\n", mem.version});
  CHECK(slurp(env.dir / "memory" / "MEMORY.md") == "- likes green tea\n");
  auto again = env.ask<workspace_text>(nullptr,
                                       workspace_read{"memory/MEMORY.md"});
  CHECK(again.text == "- likes green tea\n");
  // The prompt is built from the new text.
  auto prompt = env.ask<prompt_reply>(nullptr,
                                      prompt_request{"websocket:1", "websocket",
                                                     "", ""});
  CHECK(prompt.text.find("likes green tea") != std::string::npos);

  // Only the two files the page edits; nothing outside the workspace.
  std::string error;
  env.ask<workspace_text>(&error, workspace_write{"../escape.md", "x", ""});
  CHECK(error.find("not a file the page may change") != std::string::npos);
  env.ask<workspace_text>(&error, workspace_read{"AGENTS.md"});
  CHECK(error.find("not a file the page may read") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(env.home.dir / "escape.md"));
}

TEST_CASE("the evaluator prompt in effect: built-in, then the file") {
  files_env env;
  auto builtin = env.ask<workspace_text>(
    nullptr, workspace_read{"prompts/evaluator.md"});
  CHECK(builtin.origin == "builtin");
  CHECK_FALSE(builtin.text.empty());
  write_all(env.dir / "prompts" / "evaluator.md", "Notify only about fires.");
  auto custom = env.ask<workspace_text>(
    nullptr, workspace_read{"prompts/evaluator.md"});
  CHECK(custom.origin == "file");
  CHECK(custom.text == "Notify only about fires.");
}

TEST_CASE("skills: what each lacks, the always-on flag, SKILL.md") {
  files_env env;
  write_all(env.dir / "skills" / "weather" / "SKILL.md",
        "---\nname: weather\ndescription: the forecast\nmetadata: "
        "{\"nanobot\": {\"requires\": {\"bins\": [\"nb-no-such-tool\", "
        "\"sh\"], \"env\": [\"NB_TEST_SURELY_UNSET\"]}}}\n---\nAsk wttr.in.");
  write_all(env.dir / "skills" / "style" / "SKILL.md",
        "---\nname: style\ndescription: house style\nalways: true\n---\n"
        "Write plainly.");
  auto doc = json::parse(env.ask<std::string>(nullptr,
                                              skills_report_atom::value));
  json weather, style;
  for (auto& s : doc["skills"]) {
    if (s["name"] == "weather")
      weather = s;
    if (s["name"] == "style")
      style = s;
  }
  REQUIRE(weather.is_object());
  CHECK(weather["available"] == false);
  CHECK(weather["missing_bins"] == json::array({"nb-no-such-tool"}));
  CHECK(weather["missing_env"] == json::array({"NB_TEST_SURELY_UNSET"}));
  CHECK(weather["source"] == "workspace");
  REQUIRE(style.is_object());
  CHECK(style["available"] == true);
  CHECK(style["always"] == true);
  CHECK(style["missing_bins"].empty());

  auto md = env.ask<workspace_text>(nullptr, skill_read{"weather"});
  CHECK(md.file == "skills/weather/SKILL.md");
  CHECK(md.text.find("nb-no-such-tool") != std::string::npos);
  std::string error;
  env.ask<workspace_text>(&error, skill_read{"../weather"});
  CHECK(error.find("no skill named") != std::string::npos);
}

TEST_CASE("history.jsonl: newest first, a page at a time") {
  files_env env;
  std::string err;
  for (int i = 1; i <= 7; ++i)
    REQUIRE(append_history(env.dir.string(), "summary " + std::to_string(i),
                           "websocket:web-1", err));
  auto page = json::parse(env.ask<std::string>(nullptr, history_query{0, 3}));
  CHECK(page["total"] == 7);
  CHECK(page["more"] == true);
  REQUIRE(page["entries"].size() == 3);
  CHECK(page["entries"][0]["content"] == "summary 7");
  CHECK(page["entries"][2]["content"] == "summary 5");
  auto before = page["entries"][2]["cursor"].get<int64_t>();
  auto next = json::parse(env.ask<std::string>(nullptr,
                                               history_query{before, 10}));
  REQUIRE(next["entries"].size() == 4);
  CHECK(next["entries"][0]["content"] == "summary 4");
  CHECK(next["entries"][0]["session_key"] == "websocket:web-1");
  CHECK(next["more"] == false);
}
