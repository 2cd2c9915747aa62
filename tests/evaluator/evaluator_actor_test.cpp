// The evaluator actor against the real provider actor and a scripted
// OpenAI-compatible server on 127.0.0.1: what it sends, how it decides, how
// it fails closed, and the usage it reports to /stats.
#include <doctest/doctest.h>

#include <chrono>

#include <caf/all.hpp>

#include "actors/evaluator/evaluator.hpp"
#include "actors/evaluator/evaluator_prompt.hpp"
#include "actors/provider/provider.hpp"
#include "actors/stats/stats.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/fake_llm.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/system_fixture.hpp"

namespace {

using namespace nb;
using namespace nb::test;
using json = nlohmann::json;
using std::chrono::milliseconds;

struct gate {
  system_fixture fx;
  fake_llm llm;
  scratch_dir ws;
  stats_actor stats;
  provider_actor provider;
  evaluator_actor evaluator;

  gate() {
    settings s;
    s.agent.model = "fake-model";
    s.agent.workspace = ws.path;
    s.providers["custom"].api_base = llm.base_url();
    client_options o;
    o.retry_delays = {milliseconds{10}, milliseconds{20}, milliseconds{40}};
    o.retry_after_buffer = milliseconds{0};
    stats = spawn_stats(fx.sys);
    provider = spawn_provider(fx.sys, s, stats, o);
    session_services svc;
    svc.provider = provider;
    svc.stats = stats;
    evaluator = spawn_evaluator(fx.sys, s, svc);
  }

  ~gate() {
    for (auto a : {caf::actor_cast<caf::actor>(evaluator),
                   caf::actor_cast<caf::actor>(provider),
                   caf::actor_cast<caf::actor>(stats)})
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }

  eval_verdict ask(bool default_notify) {
    caf::scoped_actor self{fx.sys};
    eval_verdict out;
    eval_request rq{"heartbeat", "TASK: check the garden", "RESPONSE: it rained",
                    default_notify, ""};
    self->request(evaluator, std::chrono::seconds(30), rq)
      .receive([&](eval_verdict& v) { out = std::move(v); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return out;
  }

  json stats_json() {
    caf::scoped_actor self{fx.sys};
    json out;
    self->request(stats, std::chrono::seconds(5), stats_atom::value,
                  std::string{"json"})
      .receive([&](std::string& s) { out = json::parse(s); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return out;
  }
};

fake_response decision(bool notify) {
  return tool_calls({call("c1", "evaluate_notification",
                          json{{"should_notify", notify},
                               {"reason", "because"}})});
}

} // namespace

TEST_CASE("the evaluator sends one call at temperature 0 and follows the tool") {
  gate g;
  g.llm.push(decision(true));
  auto v = g.ask(false);
  CHECK(v.should_notify);
  CHECK(v.decided_by_model);
  CHECK(v.reason == "because");
  REQUIRE(g.llm.request_count() == 1);
  auto body = g.llm.requests()[0].body;
  CHECK(body["temperature"] == 0.0);
  CHECK(body["max_tokens"] == 4096);
  CHECK(body["model"] == "fake-model");
  CHECK(body["tools"][0]["function"]["name"] == "evaluate_notification");
  CHECK(body["messages"][0]["content"] == default_evaluator_prompt());
  auto user = body["messages"][1]["content"].get<std::string>();
  CHECK(user.find("TASK: check the garden") != std::string::npos);
  CHECK(user.find("RESPONSE: it rained") != std::string::npos);

  g.llm.push(decision(false));
  CHECK_FALSE(g.ask(true).should_notify);
}

TEST_CASE("the evaluator fails closed on a provider error") {
  gate g;
  g.llm.set_responder([](const json&) { return error(500, "boom"); });
  auto v = g.ask(false);
  CHECK_FALSE(v.should_notify);
  CHECK_FALSE(v.decided_by_model);
  // With a caller that defaults to notifying, the same failure notifies.
  CHECK(g.ask(true).should_notify);
}

TEST_CASE("the evaluator fails closed on a text-only reply") {
  gate g;
  g.llm.set_responder([](const json&) { return text("Yes, tell the user."); });
  CHECK_FALSE(g.ask(false).should_notify);
  CHECK(g.ask(true).should_notify);
}

TEST_CASE("a workspace override becomes the system prompt") {
  gate g;
  write_all(g.ws.at("prompts/evaluator.md"),
            "Notify only about rain. Call evaluate_notification.\n");
  g.llm.push(decision(true));
  g.ask(false);
  REQUIRE(g.llm.request_count() == 1);
  CHECK(g.llm.requests()[0].body["messages"][0]["content"]
        == "Notify only about rain. Call evaluate_notification.");
}

TEST_CASE("the evaluator's usage is counted under its source in stats") {
  gate g;
  g.llm.push(decision(true));
  g.llm.push(decision(false));
  g.ask(false);
  g.ask(false);
  // Stats arrive as messages; poll briefly for them.
  json gauges;
  for (int i = 0; i < 100; ++i) {
    gauges = g.stats_json()["gauges"];
    if (gauges.value("usage.evaluator.heartbeat.calls", 0) == 2)
      break;
    std::this_thread::sleep_for(milliseconds{20});
  }
  CHECK(gauges["usage.evaluator.heartbeat.calls"] == 2);
  // tool_calls() answers carry the fake's default usage: 10 in, 5 out.
  CHECK(gauges["usage.evaluator.heartbeat.prompt_tokens"] == 20);
  CHECK(gauges["usage.evaluator.heartbeat.completion_tokens"] == 10);
}
