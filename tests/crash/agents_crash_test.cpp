// Agent-to-agent messages go through the inbox journal like a chat's: an ask
// from one agent that waits in the other agent's session behind a slow turn
// is still there after kill -9, is stored once and reaches that agent's
// model after the restart.
#include "tests/crash/crash_scenario.hpp"

#include <atomic>
#include <fstream>
#include <future>
#include <memory>

#include <httplib.h>

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

/// "work" may ask "family"; the API picks the agent by its model field.
json two_agents(const crash_home& h) {
  auto ws = [&](const char* name) { return (h.home.dir / name).string(); };
  return {{"agents",
           {{"list",
             {{{"id", "work"}, {"model", "work-model"},
               {"workspace", ws("work")}, {"canMessage", {"family"}}},
              {{"id", "family"}, {"model", "family-model"},
               {"workspace", ws("family")}}}}}}};
}

} // namespace

TEST_CASE("crash: an agent's ask queued behind a slow turn of the other "
          "agent survives kill -9") {
  fake_llm llm;
  crash_home h{llm, json::object()};
  {
    // The agents' workspaces are under the home, so the list is written
    // once the home exists.
    auto cfg = json::parse(std::ifstream{h.config});
    cfg.merge_patch(two_agents(h));
    std::ofstream{h.config} << cfg.dump(2);
  }
  // work asks family "ping <its chat's words>"; family's first answer
  // stalls until the kill; after it, family answers.
  auto family_stalls = std::make_shared<std::atomic<bool>>(true);
  llm.set_responder([family_stalls](const json& body) {
    const auto& last = body["messages"].back();
    auto model = body["model"].get<std::string>();
    if (model == "family-model") {
      if (family_stalls->exchange(false))
        return stalled_answer();
      return text("family answers");
    }
    if (last.value("role", "") == "tool")
      return text("work is done");
    auto said = last["content"].is_string() ? last["content"].get<std::string>()
                                            : last["content"].dump();
    auto which = said.find("ask two") != std::string::npos ? "two" : "one";
    return tool_calls({call(std::string{"c-"} + which, "send_to_agent",
                            json{{"agent", "family"},
                                 {"message", std::string{"ping "} + which}})});
  });
  std::vector<std::future<void>> callers;
  auto ask = [&](const std::string& chat, const std::string& words) {
    int port = h.api_port;
    callers.push_back(std::async(std::launch::async, [port, chat, words] {
      httplib::Client cli{"127.0.0.1", port};
      cli.set_read_timeout(60, 0);
      json body{{"model", "work"},
                {"messages", {{{"role", "user"}, {"content", words}}}},
                {"session_id", chat}};
      cli.Post("/v1/chat/completions", body.dump(), "application/json");
    }));
  };
  {
    auto gw = h.start_ready();
    INFO("the first gateway's log:\n" << gw.err());
    ask("w1", "ask one");
    // work's call, then family's stalled one.
    REQUIRE(eventually([&] { return llm.request_count() >= 2; },
                       std::chrono::seconds(20)));
    ask("w2", "ask two");
    // w2's message, and its ask to family, are journaled: the ask waits in
    // family's session behind the stalled turn.
    REQUIRE(eventually([&] { return llm.request_count() >= 3
                                    && h.gauge("inbox_appended") >= 4; },
                       std::chrono::seconds(20)));
    gw.signal(SIGKILL);
    REQUIRE(gw.wait(std::chrono::seconds(10)) == 128 + SIGKILL);
  }
  for (auto& c : callers)
    c.wait();
  auto gw = h.start_ready();
  INFO("the second gateway's log:\n" << gw.err());
  CHECK(wait_model_saw(llm, {"ping two"}, std::chrono::seconds(30)));
  CHECK(eventually(
    [&] { return occurrences(h.user_texts("family:agent:work"), "ping two")
                 >= 1; },
    std::chrono::seconds(30)));
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(30)) == 0);
  // Each ask stored once, in the order they were made.
  CHECK(h.user_texts("family:agent:work")
        == std::vector<std::string>{"ping one", "ping two"});
  CHECK(occurrences(h.user_texts("work:api:w1"), "ask one") == 1);
  CHECK(occurrences(h.user_texts("work:api:w2"), "ask two") == 1);
}
