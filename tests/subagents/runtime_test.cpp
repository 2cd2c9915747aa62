// Subagents in the process as `nanobot gateway` and `nanobot agent` start
// it: the supervisor spawns the manager and hands it to the sessions.
#include <doctest/doctest.h>

#include <chrono>

#include <caf/all.hpp>

#include "actors/supervisor/runtime.hpp"
#include "tests/integration/harness.hpp"
#include "tests/subagents/gateway.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("the runtime wires the subagent manager into every session") {
  temp_home home;
  fake_llm llm;
  llm.set_responder([](const json& body) {
    if (from_subagent(body))
      return text("helper counted 5");
    auto& last = last_message(body);
    if (last.value("role", "") == "tool")
      return text("done: " + last.value("content", ""));
    return tool_calls({call("w", "spawn", json{{"task", "count"},
                                                {"wait", true}})});
  });
  auto cfg = settings_for(home, llm);
  runtime rt{cfg};
  auto reply = chat(rt.system(), rt.router(), "test", "rt", "count please");
  CHECK(reply.content == "done: helper counted 5");
  std::string stats;
  { // a scoped actor must be gone before the runtime shuts down
    caf::scoped_actor self{rt.system()};
    self->request(rt.stats(), 10s, stats_atom::value, std::string{"json"})
      .receive([&](std::string& s) { stats = std::move(s); },
               [](caf::error&) {});
  }
  CHECK(stats.find("subagents_started") != std::string::npos);
  rt.shutdown(5s);
}
