// The workspace actor: one per agent, serving the system prompt to all its
// sessions from one cached read of the files, rebuilt once per change.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/runner/model_message.hpp"
#include "actors/skills/agent_plugins.hpp"
#include "actors/workspace/workspace.hpp"
#include "messages/type_ids.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;

namespace {

/// A workspace in `home` with two skills, alpha and beta; returns its path.
std::filesystem::path two_skills(const temp_home& home) {
  auto dir = home.dir / "ws";
  write_all(dir / "skills" / "alpha" / "SKILL.md",
        "---\nname: alpha\ndescription: first\n---\nA.");
  write_all(dir / "skills" / "beta" / "SKILL.md",
        "---\nname: beta\ndescription: second\n---\nB.");
  return dir;
}

/// The skills part of the prompt the workspace actor offers.
template <class Fixture, class Workspace>
std::string offered_skills(Fixture& fx, const Workspace& ws) {
  caf::scoped_actor self{*fx.sys};
  std::string text;
  self->request(ws, std::chrono::seconds(10), workspace_skills_atom::value)
    .receive([&](std::string& t) { text = t; },
             [&](caf::error& err) { FAIL(fx.sys->render(err)); });
  return text;
}

struct actor_fixture {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  actor_fixture() {
    register_messages(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
  }
};

workspace_figures figures_of(caf::actor_system& sys, workspace_actor ws) {
  caf::scoped_actor self{sys};
  workspace_figures out;
  self->request(ws, std::chrono::seconds(10), workspace_figures_atom::value)
    .receive([&](workspace_figures& f) { out = f; },
             [&](caf::error& err) { FAIL(sys.render(err)); });
  return out;
}

/// `n` sessions ask at once; returns their prompts.
std::vector<std::string> ask_all(caf::actor_system& sys, workspace_actor ws,
                                 int n) {
  caf::scoped_actor self{sys};
  for (int i = 0; i < n; ++i)
    self->send(ws, prompt_request{"telegram:" + std::to_string(i),
                                  "telegram", "", ""});
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    self->receive([&](prompt_reply& r) { out.push_back(r.text); },
                  caf::after(std::chrono::seconds(10)) >> [&] {
                    FAIL("no prompt");
                  });
  return out;
}

} // namespace

TEST_CASE("100 sessions after one file change: one rebuild") {
  temp_home home;
  auto dir = home.dir / "ws";
  write_all(dir / "AGENTS.md", "Agents file.");
  write_all(dir / "SOUL.md", "Soul file.");
  write_all(dir / "memory" / "MEMORY.md", "The user likes tea.");
  write_all(dir / "skills" / "demo" / "SKILL.md",
        "---\nname: demo\ndescription: a demo skill\n---\nDo the demo.");
  actor_fixture fx;
  auto ws = spawn_workspace(*fx.sys, {"main", dir.string()}, {});
  auto first = ask_all(*fx.sys, ws, 100);
  REQUIRE(first.size() == 100);
  for (const auto& p : first) {
    CHECK(p.find("The user likes tea.") != std::string::npos);
    CHECK(p.find("Agents file.") != std::string::npos);
    CHECK(p.find("demo") != std::string::npos);
  }
  auto f1 = figures_of(*fx.sys, ws);
  CHECK(f1.rebuilds == 1);
  CHECK(f1.served == 100);
  auto reads_per_build = f1.file_reads;
  CHECK(reads_per_build > 0);
  CHECK(reads_per_build < 20); // the files, once: not once per session
  // A change to MEMORY.md (a new size, so the stamp differs at once).
  write_all(dir / "memory" / "MEMORY.md", "The user likes coffee now.");
  auto second = ask_all(*fx.sys, ws, 100);
  for (const auto& p : second) {
    CHECK(p.find("The user likes coffee now.") != std::string::npos);
    CHECK(p.find("likes tea") == std::string::npos);
  }
  auto f2 = figures_of(*fx.sys, ws);
  CHECK(f2.rebuilds == 2);
  CHECK(f2.file_reads == 2 * reads_per_build);
  CHECK(f2.served == 200);
  // Nothing changed: no reads at all.
  ask_all(*fx.sys, ws, 10);
  CHECK(figures_of(*fx.sys, ws).file_reads == 2 * reads_per_build);
  caf::anon_send_exit(ws, caf::exit_reason::user_shutdown);
}

TEST_CASE("each session still gets its own history and summary") {
  temp_home home;
  auto dir = home.dir / "ws";
  write_all(dir / "memory" / "history.jsonl",
        R"({"cursor":1,"timestamp":"2026-01-01 10:00","content":"A talked about boats","session_key":"telegram:a"})"
        "\n"
        R"({"cursor":2,"timestamp":"2026-01-01 11:00","content":"B talked about trains","session_key":"telegram:b"})"
        "\n");
  actor_fixture fx;
  auto ws = spawn_workspace(*fx.sys, {"main", dir.string()}, {});
  caf::scoped_actor self{*fx.sys};
  auto ask = [&](prompt_request rq) {
    std::string out;
    self->request(ws, std::chrono::seconds(10), std::move(rq))
      .receive([&](prompt_reply& r) { out = r.text; },
               [&](caf::error& err) { FAIL(fx.sys->render(err)); });
    return out;
  };
  auto a = ask({"telegram:a", "telegram", "", ""});
  auto b = ask({"telegram:b", "telegram", "older things", "2026-01-01"});
  CHECK(a.find("boats") != std::string::npos);
  CHECK(a.find("trains") == std::string::npos);
  CHECK(b.find("trains") != std::string::npos);
  CHECK(b.find("older things") != std::string::npos);
  CHECK(figures_of(*fx.sys, ws).rebuilds == 1);
  // The history append goes through the actor, and the next prompt has it.
  self->request(ws, std::chrono::seconds(10),
                workspace_append{"telegram:a", "A asked about sails", {}})
    .receive([](caf::ok_atom) {},
             [&](caf::error& err) { FAIL(fx.sys->render(err)); });
  CHECK(ask({"telegram:a", "telegram", "", ""}).find("sails")
        != std::string::npos);
  caf::anon_send_exit(ws, caf::exit_reason::user_shutdown);
}

TEST_CASE("skills: the agent's skills list filters what is offered") {
  temp_home home;
  auto dir = two_skills(home);
  actor_fixture fx;
  workspace_config cfg{"work", dir.string(), {true, {"beta"}, {}}};
  auto ws = spawn_workspace(*fx.sys, cfg, {});
  auto text = offered_skills(fx, ws);
  CHECK(text.find("beta") != std::string::npos);
  CHECK(text.find("alpha") == std::string::npos);
  caf::anon_send_exit(ws, caf::exit_reason::user_shutdown);
}

TEST_CASE("skills: disabledSkills are neither offered nor shown as usable") {
  temp_home home;
  auto dir = two_skills(home);
  actor_fixture fx;
  workspace_config cfg{"main", dir.string(), {false, {}, {"alpha"}}};
  auto ws = spawn_workspace(*fx.sys, cfg, {});
  auto text = offered_skills(fx, ws);
  CHECK(text.find("beta") != std::string::npos);
  CHECK(text.find("alpha") == std::string::npos);
  // The WebUI's report still lists it, as unavailable, saying why.
  caf::scoped_actor self{*fx.sys};
  std::string report;
  self->request(ws, std::chrono::seconds(10), skills_report_atom::value)
    .receive([&](std::string& t) { report = t; },
             [&](caf::error& err) { FAIL(fx.sys->render(err)); });
  CAPTURE(report);
  auto doc = nlohmann::json::parse(report);
  bool shown = false;
  for (auto& row : doc["skills"])
    if (row["name"] == "alpha") {
      shown = true;
      CHECK(row["available"] == false);
      CHECK(row["missing"].get<std::string>().find("disabledSkills")
            != std::string::npos);
    }
  CHECK(shown);
  caf::anon_send_exit(ws, caf::exit_reason::user_shutdown);
}

TEST_CASE("sessions with the same prompt share one made system message") {
  temp_home home;
  auto dir = home.dir / "ws";
  write_all(dir / "AGENTS.md", "Agents file.");
  actor_fixture fx;
  auto ws = spawn_workspace(*fx.sys, {"main", dir.string()}, {});
  caf::scoped_actor self{*fx.sys};
  auto ask = [&](prompt_request rq) {
    prompt_reply out;
    self->request(ws, std::chrono::seconds(10), std::move(rq))
      .receive([&](prompt_reply& r) { out = std::move(r); },
               [&](caf::error& err) { FAIL(fx.sys->render(err)); });
    return out;
  };
  auto a = ask({"api:a", "api", "", ""});
  auto b = ask({"api:b", "api", "", ""});
  auto summed = ask({"api:c", "api", "older things", "2026-01-01"});
  auto again = ask({"api:d", "api", "", ""});
  REQUIRE(a.made);
  // The made message is the prompt as the model gets it.
  CHECK(a.made->fields()["role"] == "system");
  CHECK(a.made->fields()["content"] == a.text);
  CHECK(a.made->text()
        == nlohmann::json({{"role", "system"}, {"content", a.text}}).dump());
  CHECK(a.made->tokens() > 0);
  // The same text: one message for both sessions, also after another
  // prompt was served in between; another text: its own.
  CHECK(b.text == a.text);
  CHECK(b.made == a.made);
  CHECK(again.made == a.made);
  REQUIRE(summed.made);
  CHECK(summed.made != a.made);
  CHECK(summed.made->fields()["content"] == summed.text);
  caf::anon_send_exit(ws, caf::exit_reason::user_shutdown);
}

TEST_CASE("an Agent Plugin enabled while the actor runs reaches the next "
          "prompt, and leaves it when disabled") {
  temp_home home;
  auto dir = home.dir / "ws";
  auto config_dir = home.dir / "config";
  std::filesystem::create_directories(config_dir);
  write_all(dir / "plugins" / "notes" / "plugin.json",
            R"({"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "notes"})");
  write_all(dir / "plugins" / "notes" / "skills" / "notes-skill" / "SKILL.md",
            "---\nname: notes-skill\ndescription: Keeps notes tidy.\n---\n");
  actor_fixture fx;
  auto ws = spawn_workspace(
    *fx.sys, {"main", dir.string(), {false, {}, {}, config_dir.string()}}, {});
  auto prompt = [&] { return ask_all(*fx.sys, ws, 1).at(0); };
  CHECK(prompt().find("notes-skill") == std::string::npos);
  // The marker goes where the actor worked out at its start it would look.
  REQUIRE(set_agent_plugin_enabled(dir.string(), config_dir.string(), "notes",
                                   true)
          == "");
  CHECK(prompt().find("notes-skill") != std::string::npos);
  REQUIRE(set_agent_plugin_enabled(dir.string(), config_dir.string(), "notes",
                                   false)
          == "");
  CHECK(prompt().find("notes-skill") == std::string::npos);
  CHECK(figures_of(*fx.sys, ws).rebuilds == 3);
  caf::anon_send_exit(ws, caf::exit_reason::user_shutdown);
}
