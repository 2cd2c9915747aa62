// Two gateways started on one home (by mistake, or while moving): each has
// its own inbox journal. When the second one is killed with messages
// queued, the next gateway to start on the home takes its journal over and
// delivers them, stored once.
#include "tests/crash/crash_scenario.hpp"

#include <future>

#include <httplib.h>

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("crash: what a second gateway on the home had queued is delivered "
          "by the next start") {
  fake_llm llm;
  crash_home h{llm, json::object()};
  std::vector<std::future<void>> callers;
  int b_api = free_port(), b_health = free_port();
  auto post = [&](const std::string& text) {
    callers.push_back(std::async(std::launch::async, [b_api, text] {
      httplib::Client cli{"127.0.0.1", b_api};
      cli.set_read_timeout(60, 0);
      json body{{"model", "test-model"},
                {"messages", {{{"role", "user"}, {"content", text}}}},
                {"session_id", "shared"}};
      cli.Post("/v1/chat/completions", body.dump(), "application/json");
    }));
  };
  llm.push(stalled_answer());
  {
    auto first = h.start_ready(); // the home's journal
    child_process second{{nanobot_binary(), "gateway", "-c", h.config},
                         h.home.dir.string(),
                         {"NANOBOT_API__PORT=" + std::to_string(b_api),
                          "NANOBOT_GATEWAY__PORT=" + std::to_string(b_health)}};
    REQUIRE(second.wait_for_log("gateway ready", std::chrono::seconds(20)));
    INFO("the second gateway's log:\n" << second.err());
    post("the slow one");
    REQUIRE(eventually([&] { return llm.request_count() >= 1; },
                       std::chrono::seconds(20)));
    // One at a time, so their order is the order they were sent in.
    int sent = 1;
    for (auto& t : queued_texts()) {
      post(t);
      ++sent;
      REQUIRE(eventually(
        [&] { return gauge_at(b_health, "inbox_appended") >= sent; },
        std::chrono::seconds(20)));
    }
    second.signal(SIGKILL);
    REQUIRE(second.wait(std::chrono::seconds(10)) == 128 + SIGKILL);
    first.signal(SIGTERM);
    REQUIRE(first.wait(std::chrono::seconds(20)) == 0);
  }
  for (auto& c : callers)
    c.wait();
  auto next = h.start_ready();
  INFO("the next gateway's log:\n" << next.err());
  CHECK(next.wait_for_log("taking over", std::chrono::seconds(10)));
  CHECK(wait_model_saw(llm, queued_texts(), std::chrono::seconds(30)));
  CHECK(eventually(
    [&] { return occurrences(h.user_texts("api:shared"),
                             queued_texts().back()) >= 1; },
    std::chrono::seconds(30)));
  next.signal(SIGTERM);
  CHECK(next.wait(std::chrono::seconds(30)) == 0);
  std::vector<std::string> expected{"the slow one"};
  expected.insert(expected.end(), queued_texts().begin(),
                  queued_texts().end());
  // Each once, in the order sent.
  CHECK(h.user_texts("api:shared") == expected);
}
