// The gateway node journals every message before it forwards it to an agent
// node, and the journal is what carries a chat over an agent node's death:
// a slow turn and five messages queued behind it on an agent node that is
// killed with SIGKILL are all stored exactly once, in order, the five reach
// the model on the other node, and the gateway's journal ends settled.
#include <doctest/doctest.h>

#include <csignal>
#include <future>
#include <regex>

#include <httplib.h>

#include "tests/cluster/cluster_fixture.hpp"
#include "tests/crash/crash_scenario.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

/// The agent node the gateway placed `key` on (0 when not logged yet).
int home_of(loopback_cluster& c, const std::string& key) {
  std::smatch m;
  auto log = c.gateway().err();
  std::regex placed{"\\[" + key + "\\] placed on agent-([0-9]+)"};
  int home = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), placed);
       it != std::sregex_iterator(); ++it)
    home = std::stoi((*it)[1]); // the latest placement counts
  return home;
}

std::vector<std::string> stored_texts(const loopback_cluster& c,
                                      const std::string& key) {
  std::vector<std::string> out;
  for (auto& m : session_messages(c.gateway_settings(), key))
    if (m.value("role", "") == "user" && m.contains("content")
        && m["content"].is_string())
      out.push_back(m["content"].get<std::string>());
  return out;
}

} // namespace

TEST_CASE("an agent node killed mid-turn: the gateway's journal carries the queued messages to the other node") {
  fake_llm llm;
  llm.push(stalled_answer());
  loopback_cluster c{llm, 2, false, true, json{{"connectionTimeoutMs", 5000}}};
  c.start_gateway();
  c.start_agent(1);
  c.start_agent(2);
  auto gauge = [&](const char* name) {
    return gauge_at(c.health_port(), name);
  };
  std::vector<std::future<std::string>> callers; // each caller's whole answer
  int sent = 0;
  auto send = [&](const std::string& text) {
    callers.push_back(std::async(std::launch::async, [port = c.api_port(), text] {
      httplib::Client cli{"127.0.0.1", port};
      cli.set_read_timeout(60, 0);
      json body{{"model", "test-model"},
                {"messages", {{{"role", "user"}, {"content", text}}}},
                {"session_id", "crash"}};
      auto res = cli.Post("/v1/chat/completions", body.dump(),
                          "application/json");
      return res ? std::to_string(res->status) + " " + res->body
                 : std::string{"no answer"};
    }));
    ++sent;
    // One at a time, so the journal's order is the order they were sent in.
    auto want = sent;
    REQUIRE(eventually([&] { return gauge("inbox_appended") >= want; },
                       std::chrono::seconds(10)));
  };
  send("the slow one");
  REQUIRE(eventually([&] { return llm.request_count() >= 1; },
                     std::chrono::seconds(20)));
  auto& queued = queued_texts();
  for (auto& t : queued)
    send(t);
  // Only the slow one is settled (stored); the five wait on its node.
  REQUIRE(eventually([&] { return gauge("inbox_live") == 5; },
                     std::chrono::seconds(10)));
  int home = home_of(c, "api:crash");
  REQUIRE_MESSAGE(home > 0, c.report());
  c.agent(home).signal(SIGKILL);
  REQUIRE(c.agent(home).wait(std::chrono::seconds(10)) == 128 + SIGKILL);

  // The other node runs the five, in order; the caller of the slow one is
  // told its turn was interrupted.
  CHECK_MESSAGE(wait_model_saw(llm, queued, std::chrono::seconds(30)),
                c.report());
  std::vector<std::string> answers;
  for (auto& f : callers)
    answers.push_back(f.get());
  CHECK_MESSAGE(answers[0].find("interrupted") != std::string::npos,
                answers[0]);
  for (size_t i = 0; i < queued.size(); ++i) {
    CHECK(answers[i + 1].rfind("200 ", 0) == 0);
    CHECK(answers[i + 1].find("echo: " + queued[i]) != std::string::npos);
  }
  CHECK(home_of(c, "api:crash") != home);
  // Everything is settled in the gateway's journal: nothing would run again
  // at its next start.
  CHECK(eventually([&] { return gauge("inbox_live") == 0; },
                   std::chrono::seconds(10)));
  std::vector<std::string> expected{"the slow one"};
  expected.insert(expected.end(), queued.begin(), queued.end());
  CHECK(stored_texts(c, "api:crash") == expected);
}
