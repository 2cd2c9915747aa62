// The OpenAI-compatible API: each request is in the inbox journal before its
// session sees it, so requests waiting behind a slow one run after a crash
// (their callers' connections died with the gateway).
#include "tests/crash/crash_scenario.hpp"

#include <future>

#include <httplib.h>

#include "actors/inbox/journal_records.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("crash: the API keeps five requests queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  crash_home h{llm, json::object()};
  std::vector<std::future<void>> callers;
  int sent = 0;
  platform_driver p;
  p.send = [&](const std::string& text) {
    int port = h.api_port;
    callers.push_back(std::async(std::launch::async, [port, text] {
      httplib::Client cli{"127.0.0.1", port};
      cli.set_read_timeout(60, 0);
      json body{{"model", "test-model"},
                {"messages", {{{"role", "user"}, {"content", text}}}},
                {"session_id", "crash"}};
      cli.Post("/v1/chat/completions", body.dump(), "application/json");
    }));
    ++sent;
    // One at a time, so their order is the order they were sent in.
    auto want = sent;
    REQUIRE(eventually([&] { return h.gauge("inbox_appended") >= want; },
                       std::chrono::seconds(10)));
  };
  bool restarted = false; // the new process counts afresh
  p.all_acknowledged = [&] {
    return restarted || h.gauge("inbox_appended") >= sent;
  };
  p.after_kill = [&] { restarted = true; };
  p.session_key = "api:crash";
  slow_then_five_then_kill(h, llm, p, stop_signal);
  for (auto& c : callers)
    c.wait();
}

TEST_CASE("crash: turns answered just before a kill -9 run no second time") {
  // The inbox writes a settle with the next message's write or a second
  // later: a crash right after a turn leaves its entry unsettled. The next
  // start delivers it again; its session has the message and settles it
  // without a turn.
  fake_llm llm;
  crash_home h{llm, json::object()};
  auto gw = h.start_ready();
  httplib::Client cli{"127.0.0.1", h.api_port};
  cli.set_read_timeout(60, 0);
  for (auto text : {"one", "two", "three"}) {
    json body{{"model", "test-model"},
              {"messages", {{{"role", "user"}, {"content", text}}}},
              {"session_id", "quick"}};
    auto r = cli.Post("/v1/chat/completions", body.dump(), "application/json");
    REQUIRE(r);
    REQUIRE(r->status == 200);
  }
  gw.signal(SIGKILL);
  gw.wait(std::chrono::seconds(10));
  auto before = llm.request_count();
  REQUIRE(before == 3);
  // At least the last turn's settle had not been written.
  auto journal = inbox::read_journal(
    read_all((h.home.dir / "inbox" / "journal").string()), 100);
  CHECK(journal.live.size() >= 1);
  auto again = h.start_ready();
  // The redelivered entries are settled: the journal's live count drops
  // to zero, and no turn ran.
  CHECK(eventually([&] { return h.gauge("inbox_live") == 0; },
                   std::chrono::seconds(15)));
  CHECK(llm.request_count() == before);
  CHECK(h.user_texts("api:quick")
        == std::vector<std::string>{"one", "two", "three"});
}
