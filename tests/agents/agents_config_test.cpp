// agents.list and agents.bindings: inheritance from agents.defaults, the
// errors a user reads (each naming its key), the bindings' precedence and
// the session keys that follow.
#include "actors/agents/agent_listing.hpp"
#include "actors/agents/agent_route.hpp"
#include "tests/config/helpers.hpp"

using namespace nb;
using namespace nb::test;

namespace {

const char* two_agents = R"({
  "agents": {
    "defaults": {"workspace": "/tmp/nb-agents/main", "model": "main-model",
                 "maxTokens": 1000, "temperature": 0.3},
    "list": [
      {"id": "work", "name": "Work assistant", "model": "work-model",
       "workspace": "/tmp/nb-agents/work",
       "tools": {"deny": ["exec"]}, "canMessage": ["family"]},
      {"id": "family", "modelPreset": "cheap", "heartbeat": {"enabled": false},
       "mcpServers": []}
    ],
    "bindings": [
      {"agent": "work", "channel": "slack"},
      {"agent": "family", "channel": "telegram", "chatId": 42},
      {"agent": "work", "channel": "telegram", "group": true}
    ]
  },
  "modelPresets": {"cheap": {"model": "cheap-model", "maxTokens": 256}}
})";

} // namespace

TEST_CASE("agents inherit what they leave out from agents.defaults") {
  auto s = ok(parse(two_agents)).value;
  REQUIRE(s.agents.size() == 2);
  CHECK(s.agent_ids() == std::vector<std::string>{"main", "work", "family"});
  auto work = s.for_agent("work");
  CHECK(work.agent.model == "work-model");
  CHECK(work.agent.max_tokens == 1000);
  CHECK(work.agent.temperature == doctest::Approx(0.3));
  CHECK(work.workspace_path() == "/tmp/nb-agents/work");
  CHECK(work.tools.deny == std::vector<std::string>{"exec"});
  CHECK(s.find_agent("work")->name == "Work assistant");
  CHECK(s.find_agent("work")->can_message
        == std::vector<std::string>{"family"});
  auto family = s.for_agent("family");
  CHECK(family.agent.model == "cheap-model");
  CHECK(family.agent.max_tokens == 256);
  // No workspace given: its own folder beside the defaults' workspace.
  CHECK(family.workspace_path() == "/tmp/nb-agents/workspace-family");
  CHECK_FALSE(family.gateway.heartbeat.enabled);
  CHECK(s.gateway.heartbeat.enabled);
  // main is agents.defaults itself.
  auto main = s.for_agent("main");
  CHECK(main.agent.model == "main-model");
  CHECK(main.workspace_path() == "/tmp/nb-agents/main");
  REQUIRE(s.bindings.size() == 3);
  CHECK(s.bindings[1].chat_id == "42"); // a number is read as the id text
  CHECK(s.bindings[2].group == 1);
}

TEST_CASE("a config without agents.list is one agent, main") {
  auto s = ok(parse(R"({"agents": {"defaults": {"model": "m"}}})")).value;
  CHECK(s.agents.empty());
  CHECK(s.bindings.empty());
  CHECK(s.agent_ids() == std::vector<std::string>{"main"});
  CHECK(s.for_agent("main").agent.model == "m");
  CHECK(s.find_agent("main") == nullptr);
}

TEST_CASE("agent mistakes are errors naming the key") {
  struct row {
    const char* json;
    const char* key;
    const char* says;
  };
  const row rows[] = {
    {R"({"agents": {"list": [{"name": "x"}]}})", "agents.list[0].id",
     "missing"},
    {R"({"agents": {"list": [{"id": "Work"}]}})", "agents.list[0].id",
     "a-z"},
    {R"({"agents": {"list": [{"id": "a-very-long-agent-id-over-32-chars"}]}})",
     "agents.list[0].id", "1 to 32"},
    {R"({"agents": {"list": [{"id": "main"}]}})", "agents.list[0].id",
     "implicit agent"},
    {R"({"agents": {"list": [{"id": "a"}, {"id": "a"}]}})",
     "agents.list[1].id", "duplicate agent id \"a\""},
    {R"({"agents": {"list": [{"id": "a"}],
                    "bindings": [{"agent": "b", "channel": "cli"}]}})",
     "agents.bindings[0].agent", "unknown agent \"b\""},
    {R"({"agents": {"bindings": [{"agent": "main"}]}})",
     "agents.bindings[0].channel", "missing"},
    {R"({"agents": {"list": [{"id": "a", "canMessage": ["zz"]}]}})",
     "agents.list[0].canMessage[0]", "unknown agent \"zz\""},
    {R"({"agents": {"defaults": {"workspace": "/tmp/w"},
                    "list": [{"id": "a", "workspace": "/tmp/w"}]}})",
     "agents.list[0].workspace", "same workspace as agents.defaults"},
    {R"({"agents": {"list": [{"id": "a", "workspace": "/tmp/x"},
                             {"id": "b", "workspace": "/tmp/x/"}]}})",
     "agents.list[1].workspace", "same workspace as agents.list[0]"},
    {R"({"agents": {"list": [{"id": "a", "workspace": "/tmp/x"},
                             {"id": "b", "workspace": "/tmp/x/b"}]}})",
     "agents.list[1].workspace", "nested"},
    {R"({"agents": {"list": [{"id": "a", "modelPreset": "nope"}]}})",
     "agents.list[0].modelPreset", "unknown preset \"nope\""},
    {R"({"agents": {"list": [{"id": "a", "mcpServers": ["gh"]}]}})",
     "agents.list[0].mcpServers[0]", "no MCP server \"gh\""},
    {R"({"agents": {"list": [{"id": "a", "maxTokens": "many"}]}})",
     "agents.list[0].maxTokens", "expected an integer"},
    {R"({"agents": {"list": {"id": "a"}}})", "agents.list",
     "expected a list"},
    {R"({"agents": {"list": [{"id": "a", "heartbeat": {"intervalS": 0}}]}})",
     "agents.list[0].heartbeat.intervalS", "between"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.json);
    auto e = err(parse(r.json));
    CHECK(e.key_path == r.key);
    CHECK(contains(e.reason, r.says));
    CHECK(contains(e.message(), r.key));
  }
}

TEST_CASE("unknown keys in an agent entry are reported, not fatal") {
  auto r = ok(parse(R"({"agents": {"list": [{"id": "a", "modle": "x"}]}})"));
  CHECK(any_contains(r.warnings, "agents.list[0].modle"));
}

TEST_CASE("bindings precedence: most specific wins, ties go to the earlier") {
  std::vector<agent_binding> b{
    {"slacky", "slack"},                         // 0: the channel
    {"tg", "telegram"},                          // 1: the channel
    {"tg-dm", "telegram", "", "", "", 0},        // 2: direct chats
    {"tg-42", "telegram", "", "42"},             // 3: one chat
    {"tg-42-ann", "telegram", "", "42", "ann"},  // 4: one chat and sender
    {"tg-42-again", "telegram", "", "42"},       // 5: ties with 3
    {"tg-home", "telegram", "home"},             // 6: one instance
    {"tg-group", "telegram", "", "", "", 1},     // 7: groups
  };
  struct row {
    route_facts facts;
    const char* agent;
  };
  const row rows[] = {
    {{"slack", "slack", "C1", "U1", true}, "slacky"},
    {{"telegram", "telegram", "7", "bob", true}, "tg-group"},
    {{"telegram", "telegram", "7", "bob", false}, "tg-dm"},
    {{"telegram", "telegram", "42", "bob", false}, "tg-42"},
    {{"telegram", "telegram", "42", "ann", false}, "tg-42-ann"},
    {{"telegram", "home", "9", "bob", true}, "tg-group"}, // group > instance
    {{"discord", "discord", "1", "x", false}, "main"},
    {{"api", "api", "default", "api", false}, "main"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.agent);
    CHECK(match_binding(b, r.facts) == r.agent);
  }
  CHECK(match_binding({}, {"telegram", "telegram", "1", "u", false})
        == "main");
  std::vector<agent_binding> inst{{"tg", "telegram"},
                                  {"tg-home", "telegram", "home"}};
  CHECK(match_binding(inst, {"telegram", "home", "9", "bob", true})
        == "tg-home");
  CHECK(match_binding(inst, {"telegram", "work", "9", "bob", true}) == "tg");
  // "*" is any channel, and loses to a binding naming the channel.
  std::vector<agent_binding> any{{"all", "*"}, {"tg", "telegram"}};
  CHECK(match_binding(any, {"cli", "cli", "direct", "user", false}) == "all");
  CHECK(match_binding(any, {"telegram", "telegram", "1", "u", false})
        == "all"); // equally specific: the earlier entry
}

TEST_CASE("session keys: main keeps {channel}:{chat_id}") {
  inbound_msg in;
  in.channel = "telegram";
  in.chat_id = "42";
  CHECK(routed_session_key(in) == "telegram:42"); // nothing stamped
  set_agent(in, "main");
  CHECK(routed_session_key(in) == "telegram:42");
  set_agent(in, "work");
  CHECK(agent_of(in) == "work");
  CHECK(routed_session_key(in) == "work:telegram:42");
  in.session_key_override = "telegram:42:topic:7";
  CHECK(routed_session_key(in) == "work:telegram:42:topic:7");
  CHECK(agent_of_key("work:telegram:42", {"main", "work"}) == "work");
  CHECK(agent_of_key("telegram:42", {"main", "work"}) == "main");
}

TEST_CASE("resolve_agent keeps an explicit choice and the metadata") {
  std::vector<agent_binding> b{{"work", "telegram"}};
  inbound_msg in;
  in.channel = "telegram";
  in.chat_id = "1";
  in.metadata_json = R"({"_message_id":"77"})";
  resolve_agent(in, b);
  CHECK(agent_of(in) == "work");
  CHECK(contains(in.metadata_json, "\"_message_id\":\"77\""));
  inbound_msg chosen;
  chosen.channel = "telegram";
  set_agent(chosen, "main");
  resolve_agent(chosen, b);
  CHECK(agent_of(chosen) == "main");
  inbound_msg plain; // no bindings: untouched
  plain.channel = "telegram";
  resolve_agent(plain, {});
  CHECK(plain.metadata_json == "{}");
}

TEST_CASE("nanobot agents list shows agents, workspaces, models, bindings") {
  auto s = ok(parse(two_agents)).value;
  auto text = agents_listing(s);
  CHECK(contains(text, "main  (agents.defaults)"));
  CHECK(contains(text, "work  (Work assistant)"));
  CHECK(contains(text, "model:     work-model"));
  CHECK(contains(text, "workspace: /tmp/nb-agents/workspace-family"));
  CHECK(contains(text, "2. telegram chatId=42 -> family"));
  CHECK(contains(text, "3. telegram group=true -> work"));
  CHECK(contains(agent_summary(s, "work"), "work (Work assistant), model "
                                           "work-model"));
}
