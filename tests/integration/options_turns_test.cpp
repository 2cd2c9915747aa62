// The original's settings that change a whole turn, through the real actor
// tree: reasoningEffort and extraBody reach the model's request,
// unifiedSession makes every chat one conversation, disabledSkills keeps a
// skill out of the prompt.
#include <doctest/doctest.h>

#include <fstream>

#include "actors/store/session_files.hpp"
#include "tests/integration/gateway_fixture.hpp"
#include "tests/integration/harness.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

/// The system prompt of a recorded request.
std::string system_text(const recorded_request& rq) {
  for (auto& m : rq.body["messages"])
    if (m["role"] == "system")
      return m["content"].is_string() ? m["content"].get<std::string>()
                                      : m["content"].dump();
  return {};
}

} // namespace

TEST_CASE("options: reasoningEffort, the thinking style and extraBody reach "
          "the model") {
  gateway_fixture gw([](settings& cfg, fake_llm&) {
    cfg.agent.reasoning_effort = "medium";
    auto& p = cfg.providers["custom"];
    p.thinking_style = "thinking_type";
    p.extra_body = json{{"seed", 42}}.dump();
    p.extra_query = {{"tenant", "t1"}};
  });
  auto r = gw.say_in("a1", "think about it");
  REQUIRE_FALSE(r.timed_out);
  // The echo repeats the whole user message; the runtime context follows.
  CHECK(r.content.starts_with("echo: think about it"));
  auto rq = gw.llm.requests().at(0);
  CHECK(rq.body["reasoning_effort"] == "medium");
  CHECK(rq.body["thinking"] == json{{"type", "enabled"}});
  CHECK(rq.body["seed"] == 42);
  CHECK_FALSE(rq.body.contains("temperature"));
}

TEST_CASE("options: unifiedSession makes every chat one conversation") {
  gateway_fixture gw(
    [](settings& cfg, fake_llm&) { cfg.agent.unified_session = true; });
  auto first = gw.say_in("a1", "my name is Ada");
  CHECK(first.content.starts_with("echo: my name is Ada"));
  auto second =
    chat(gw.rt->system(), gw.rt->router(), "other", "b2", "who am I?");
  REQUIRE_FALSE(second.timed_out);
  CHECK(second.content.starts_with("echo: who am I?"));
  // The second chat's request carries the first chat's turn.
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[1].body["messages"].dump().find("my name is Ada")
        != std::string::npos);
  auto stored = session_messages(gw.cfg, "unified:default");
  int users = 0;
  for (auto& m : stored)
    users += m["role"] == "user";
  CHECK(users == 2);
  CHECK(session_messages(gw.cfg, "test:a1").empty());
  // The heartbeat finds the user in the chat they wrote from last.
  auto dir = resolve_sessions_dir(gw.cfg);
  REQUIRE(dir);
  auto snap = load_session(*dir, "unified:default");
  REQUIRE(snap);
  CHECK(json::parse(snap->metadata_json)["last_channel"] == "other:b2");
}

TEST_CASE("options: a disabled skill stays out of the prompt") {
  gateway_fixture gw([](settings& cfg, fake_llm&) {
    cfg.agent.disabled_skills = {"secret-recipe"};
  });
  auto skills = std::filesystem::path{gw.cfg.workspace_path()} / "skills";
  for (std::string name : {"secret-recipe", "open-recipe"}) {
    std::filesystem::create_directories(skills / name);
    std::ofstream{skills / name / "SKILL.md"}
      << "---\nname: " << name << "\ndescription: how to cook " << name
      << "\n---\nSteps.\n";
  }
  auto r = gw.say_in("a1", "what can you do?");
  REQUIRE_FALSE(r.timed_out);
  auto prompt = system_text(gw.llm.requests().at(0));
  CHECK(prompt.find("open-recipe") != std::string::npos);
  CHECK(prompt.find("secret-recipe") == std::string::npos);
  auto listed = gw.say_in("a1", "/skill");
  CHECK(listed.content.find("open-recipe") != std::string::npos);
  CHECK(listed.content.find("secret-recipe") == std::string::npos);
}
