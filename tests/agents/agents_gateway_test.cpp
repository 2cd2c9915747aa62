// Two agents and main in one gateway, through the real router, sessions,
// tools and provider, against the scripted LLM: each request carries its
// agent's model and system prompt, one agent's files are invisible to the
// other, and a single-agent home keeps its sessions when agents are added.
#include <doctest/doctest.h>

#include <fstream>
#include <memory>
#include <set>
#include <thread>

#include <caf/scoped_actor.hpp>

#include "actors/cron/job_store.hpp"
#include "actors/supervisor/runtime.hpp"
#include "config/load.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

/// A config.json in `home` with `agents` (the "agents" object's text
/// after "defaults"), loaded the way the gateway loads it.
settings load_home(const temp_home& home, const fake_llm& llm,
                   const std::string& agents) {
  auto ws = [&](const char* name) { return (home.dir / name).string(); };
  std::string text = R"({"providers": {"custom": {"apiBase": ")"
                     + llm.base_url() + R"("}},
    "agents": {"defaults": {"workspace": ")" + ws("main") + R"(",
                            "model": "main-model", "provider": "custom"})"
                     + agents + "}}";
  write_all(home.dir / "config.json", text);
  auto r = load_settings((home.dir / "config.json").string());
  if (auto* e = std::get_if<config_error>(&r))
    FAIL(e->message());
  return std::get<loaded_settings>(r).value;
}

std::string two_agents_config(const temp_home& home) {
  return R"(, "list": [
      {"id": "work", "model": "work-model", "workspace": ")"
         + (home.dir / "work").string() + R"("},
      {"id": "family", "model": "family-model", "workspace": ")"
         + (home.dir / "family").string() + R"("}],
    "bindings": [
      {"agent": "work", "channel": "telegram", "chatId": "100"},
      {"agent": "family", "channel": "telegram", "chatId": "200"}])";
}

/// The system prompt of a recorded request.
std::string system_of(const recorded_request& r) {
  return r.body["messages"][0]["content"].get<std::string>();
}

/// The tool message answering `call_id` in a recorded request ("" = none).
std::string tool_answer(const recorded_request& r, const std::string& id) {
  for (const auto& m : r.body["messages"])
    if (m.value("role", "") == "tool" && m.value("tool_call_id", "") == id)
      return m["content"].is_string() ? m["content"].get<std::string>()
                                      : m["content"].dump();
  return {};
}

} // namespace

TEST_CASE("each agent answers with its own model and system prompt") {
  temp_home home;
  fake_llm llm;
  auto cfg = load_home(home, llm, two_agents_config(home));
  write_all(home.dir / "main" / "AGENTS.md", "I am the MAIN agent.");
  write_all(home.dir / "work" / "AGENTS.md", "I am the WORK agent.");
  write_all(home.dir / "family" / "AGENTS.md", "I am the FAMILY agent.");
  runtime rt{cfg};
  auto work = chat(rt.system(), rt.router(), "telegram", "100", "hello");
  auto family = chat(rt.system(), rt.router(), "telegram", "200", "hello");
  auto other = chat(rt.system(), rt.router(), "telegram", "300", "hello");
  REQUIRE_FALSE(work.timed_out);
  REQUIRE_FALSE(family.timed_out);
  REQUIRE_FALSE(other.timed_out);
  auto reqs = llm.requests();
  REQUIRE(reqs.size() == 3);
  CHECK(reqs[0].body["model"] == "work-model");
  CHECK(system_of(reqs[0]).find("I am the WORK agent.") != std::string::npos);
  CHECK(system_of(reqs[0]).find("FAMILY") == std::string::npos);
  CHECK(reqs[1].body["model"] == "family-model");
  CHECK(system_of(reqs[1]).find("I am the FAMILY agent.") != std::string::npos);
  CHECK(reqs[2].body["model"] == "main-model");
  CHECK(system_of(reqs[2]).find("I am the MAIN agent.") != std::string::npos);
  // Keys: {agent}:{channel}:{chat_id}, and main's stay unprefixed.
  CHECK(session_messages(cfg, "work:telegram:100").size() == 2);
  CHECK(session_messages(cfg, "family:telegram:200").size() == 2);
  CHECK(session_messages(cfg, "telegram:300").size() == 2);
  CHECK(session_messages(cfg, "telegram:100").empty());
  // /agent says who answers.
  auto who = chat(rt.system(), rt.router(), "telegram", "100", "/agent");
  CHECK(who.content.find("Agent: work") != std::string::npos);
  CHECK(who.content.find((home.dir / "work").string()) != std::string::npos);
  auto main_who = chat(rt.system(), rt.router(), "telegram", "300", "/agent");
  CHECK(main_who.content.find("Agent: main") != std::string::npos);
}

TEST_CASE("a file one agent's tool writes is invisible to the other") {
  temp_home home;
  fake_llm llm;
  auto cfg = load_home(home, llm, two_agents_config(home));
  auto secret = (home.dir / "work" / "secret.txt").string();
  llm.push(tool_calls({call("w1", "write_file",
                            json{{"path", "secret.txt"},
                                 {"content", "s3cret-of-work"}})}));
  llm.push(text("written"));
  llm.push(tool_calls({call("r1", "read_file", json{{"path", secret}})}));
  llm.push(text("tried"));
  llm.push(tool_calls({call("l1", "list_dir",
                            json{{"path", (home.dir / "work").string()}})}));
  llm.push(text("listed"));
  runtime rt{cfg};
  auto wrote = chat(rt.system(), rt.router(), "telegram", "100", "write it");
  REQUIRE(wrote.content == "written");
  // Written into work's workspace (the sandbox root is the agent's).
  std::ifstream in{secret};
  std::string body;
  std::getline(in, body);
  CHECK(body == "s3cret-of-work");
  CHECK_FALSE(std::filesystem::exists(home.dir / "main" / "secret.txt"));
  auto read = chat(rt.system(), rt.router(), "telegram", "200", "read it");
  REQUIRE(read.content == "tried");
  auto listed = chat(rt.system(), rt.router(), "telegram", "200", "list it");
  REQUIRE(listed.content == "listed");
  auto reqs = llm.requests();
  REQUIRE(reqs.size() == 6);
  auto answer = tool_answer(reqs[3], "r1");
  CHECK(answer.find("s3cret") == std::string::npos);
  CHECK(answer.find("Error") != std::string::npos);
  auto listing = tool_answer(reqs[5], "l1");
  CHECK(listing.find("secret.txt") == std::string::npos);
  CHECK(listing.find("Error") != std::string::npos);
}

TEST_CASE("tools.deny hides a tool from the agent and refuses its calls") {
  temp_home home;
  fake_llm llm;
  // The session's own tools (the goal tools, run by the runner and the
  // session, not the tools front) follow the same rule.
  auto cfg = load_home(home, llm,
                       R"(, "list": [
      {"id": "ro", "workspace": ")"
                         + (home.dir / "ro").string() + R"(",
       "tools": {"deny": ["write_file", "exec", "create_goal",
                          "update_goal"]}}],
    "bindings": [{"agent": "ro", "channel": "cli"}])");
  llm.push(tool_calls({call("w1", "write_file",
                            json{{"path", "x.txt"}, {"content", "x"}})}));
  llm.push(
    tool_calls({call("g1", "update_goal", json{{"action", "complete"}})}));
  llm.push(text("done"));
  runtime rt{cfg};
  auto r = chat(rt.system(), rt.router(), "cli", "direct", "write");
  REQUIRE(r.content == "done");
  auto reqs = llm.requests();
  REQUIRE(reqs.size() == 3);
  std::set<std::string> offered;
  for (const auto& t : reqs[0].body["tools"])
    offered.insert(t["function"]["name"].get<std::string>());
  for (auto denied : {"write_file", "exec", "create_goal", "update_goal"})
    CHECK(offered.count(denied) == 0);
  CHECK(offered.count("read_file") == 1);
  CHECK(tool_answer(reqs[1], "w1").find("not available to this agent")
        != std::string::npos);
  CHECK(tool_answer(reqs[2], "g1")
          .find("Tool 'update_goal' is not available "
                "to this agent")
        != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(home.dir / "ro" / "x.txt"));
  CHECK(session_messages(cfg, "ro:cli:direct").size() == 6);
}

TEST_CASE("a single-agent home keeps its sessions when agents are added") {
  temp_home home;
  fake_llm llm;
  {
    auto single = load_home(home, llm, "");
    runtime rt{single};
    auto r = chat(rt.system(), rt.router(), "telegram", "100", "remember 7");
    REQUIRE_FALSE(r.timed_out);
    CHECK(session_messages(single, "telegram:100").size() == 2);
  }
  // Now chat 200 goes to a new agent; chat 100 is still main's.
  auto cfg = load_home(home, llm, R"(, "list": [
      {"id": "work", "workspace": ")" + (home.dir / "work").string() + R"("}],
    "bindings": [{"agent": "work", "channel": "telegram", "chatId": "200"}])");
  runtime rt{cfg};
  auto again = chat(rt.system(), rt.router(), "telegram", "100", "and now?");
  REQUIRE_FALSE(again.timed_out);
  auto reqs = llm.requests();
  REQUIRE(reqs.size() == 2);
  // The history of the old session is replayed: same key, same file.
  CHECK(reqs[1].body["messages"].dump().find("remember 7")
        != std::string::npos);
  CHECK(session_messages(cfg, "telegram:100").size() == 4);
  auto work = chat(rt.system(), rt.router(), "telegram", "200", "hi");
  REQUIRE_FALSE(work.timed_out);
  CHECK(llm.requests()[2].body["messages"].dump().find("remember 7")
        == std::string::npos);
}

TEST_CASE("cron jobs live in the agent's workspace and fire into its session") {
  temp_home home;
  fake_llm llm;
  auto cfg = load_home(home, llm, two_agents_config(home));
  write_all(home.dir / "work" / "AGENTS.md", "I am the WORK agent.");
  llm.push(tool_calls({call("c1", "cron",
                            json{{"action", "add"},
                                 {"message", "water the plants"},
                                 {"every_seconds", 1}})}));
  llm.push(text("scheduled"));
  runtime rt{cfg, /*background=*/true};
  auto r = chat(rt.system(), rt.router(), "telegram", "100", "remind me");
  REQUIRE(r.content == "scheduled");
  // The user job is in work's store; main's holds only its own protected
  // system jobs (dream, heartbeat), registered at start.
  auto kinds = [&](const char* agent) {
    std::multiset<std::string> out;
    cron::job_store store{(home.dir / agent / "cron").string()};
    for (const auto& j : store.read().jobs)
      out.insert(j.payload_kind);
    return out;
  };
  CHECK(kinds("work").count("agent_turn") == 1);
  CHECK(kinds("main").count("agent_turn") == 0);
  // The job fires (the cron actor polls every 2 s) into work's session.
  for (int i = 0; i < 100 && llm.request_count() < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto reqs = llm.requests();
  REQUIRE(reqs.size() >= 3);
  CHECK(reqs[2].body["model"] == "work-model");
  CHECK(system_of(reqs[2]).find("I am the WORK agent.") != std::string::npos);
  CHECK(reqs[2].body["messages"].dump().find("water the plants")
        != std::string::npos);
  rt.shutdown(std::chrono::seconds(5));
  CHECK(session_messages(cfg, "work:telegram:100").size() >= 6);
  CHECK(session_messages(cfg, "telegram:100").empty());
}

TEST_CASE("send_to_agent asks another agent and stops at depth 3") {
  temp_home home;
  fake_llm llm;
  auto cfg = load_home(home, llm, R"(, "list": [
      {"id": "work", "model": "work-model", "canMessage": ["family"],
       "workspace": ")" + (home.dir / "work").string() + R"("},
      {"id": "family", "model": "family-model", "canMessage": ["work"],
       "workspace": ")" + (home.dir / "family").string() + R"("},
      {"id": "lonely", "model": "lonely-model",
       "workspace": ")" + (home.dir / "lonely").string() + R"("}],
    "bindings": [
      {"agent": "work", "channel": "telegram", "chatId": "100"},
      {"agent": "lonely", "channel": "telegram", "chatId": "300"}])");
  // Each agent asks the other until a tool result comes back.
  llm.set_responder([](const json& body) {
    const auto& last = body["messages"].back();
    if (last.value("role", "") == "tool")
      return text("done after: " + last["content"].dump().substr(0, 60));
    auto model = body["model"].get<std::string>();
    if (model == "lonely-model")
      return text("nobody to ask");
    bool offered = false;
    for (const auto& t : body.value("tools", json::array()))
      offered |= t["function"]["name"] == "send_to_agent";
    if (!offered)
      return text("no send_to_agent offered");
    return tool_calls({call("s-" + model, "send_to_agent",
                            json{{"agent", model == "work-model" ? "family"
                                                                 : "work"},
                                 {"message", "ping from " + model}})});
  });
  runtime rt{cfg};
  auto r = chat(rt.system(), rt.router(), "telegram", "100", "start");
  REQUIRE_FALSE(r.timed_out);
  CHECK(r.content.find("done after") != std::string::npos);
  auto reqs = llm.requests();
  // work -> family -> work, whose ask is refused (three agents' turns in
  // the chain): each turn makes a first call and one after its tool result.
  REQUIRE(reqs.size() == 6);
  CHECK(reqs[0].body["model"] == "work-model");
  CHECK(reqs[1].body["model"] == "family-model");
  CHECK(reqs[2].body["model"] == "work-model");
  CHECK(reqs[3].body["model"] == "work-model");
  CHECK(reqs[4].body["model"] == "family-model");
  CHECK(reqs[5].body["model"] == "work-model");
  auto refused = reqs[3].body["messages"].back();
  CHECK(refused["role"] == "tool");
  CHECK(refused["content"].dump().find("the limit is 3") != std::string::npos);
  // The other agent's sessions are "{agent}:agent:{from}".
  CHECK_FALSE(session_messages(cfg, "family:agent:work").empty());
  CHECK_FALSE(session_messages(cfg, "work:agent:family").empty());
  // Without canMessage the tool is not offered at all.
  auto lone = chat(rt.system(), rt.router(), "telegram", "300", "hi");
  CHECK(lone.content == "nobody to ask");
  for (const auto& t : llm.requests().back().body.value("tools", json::array()))
    CHECK(t["function"]["name"] != "send_to_agent");
}

TEST_CASE("stats carry the agent label on turns, model calls and tools") {
  temp_home home;
  fake_llm llm;
  auto cfg = load_home(home, llm, two_agents_config(home));
  llm.push(tool_calls({call("l1", "list_dir", json{{"path", "."}})}));
  llm.push(text("listed"));
  runtime rt{cfg};
  chat(rt.system(), rt.router(), "telegram", "100", "list");
  chat(rt.system(), rt.router(), "telegram", "300", "hello");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  caf::scoped_actor self{rt.system()};
  std::string text_json, prom;
  self->request(rt.stats(), std::chrono::seconds(5), stats_atom::value,
                std::string{"json"})
    .receive([&](std::string& s) { text_json = s; }, [](caf::error&) {});
  self->request(rt.stats(), std::chrono::seconds(5), stats_atom::value,
                std::string{"prometheus"})
    .receive([&](std::string& s) { prom = s; }, [](caf::error&) {});
  auto doc = json::parse(text_json);
  REQUIRE(doc.contains("agents"));
  CHECK(doc["agents"]["work"]["turns"]["completed"] == 1);
  CHECK(doc["agents"]["work"]["provider_calls_ok"] == 2);
  CHECK(doc["agents"]["work"]["tool_calls"] == 1);
  CHECK(doc["agents"]["main"]["turns"]["completed"] == 1);
  CHECK(doc["agents"]["main"]["tool_calls"] == 0);
  CHECK(prom.find(R"(nanobot_agent_turns_total{agent="work",outcome="completed"} 1)")
        != std::string::npos);
  CHECK(prom.find(R"(nanobot_agent_tool_calls_total{agent="work"} 1)")
        != std::string::npos);
}
