// The real executable stopped the hard way (kill -9) or the orderly way
// (SIGTERM) and started again: what it takes back, and how long it takes.
#include <doctest/doctest.h>

#include <csignal>
#include <future>
#include <set>
#include <thread>
#include <vector>

#include "tests/integration/gateway_home.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_scan.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

constexpr const char* owns_schedules = "owns the schedules lease";

} // namespace

TEST_CASE("a gateway restarted after kill -9 takes its schedules lease back at once") {
  fake_llm llm;
  // A long TTL: waiting it out would fail the test's bound below.
  home_with_config h{custom_provider(llm),
                     {{"cluster", {{"schedulesLeaseMs", 60000}}}}};
  {
    auto gw = h.start_gateway();
    REQUIRE(gw.wait_for_log(owns_schedules, std::chrono::seconds(10)));
    gw.signal(SIGKILL);
    CHECK(gw.wait(std::chrono::seconds(10)) == 128 + SIGKILL);
  }
  auto started = std::chrono::steady_clock::now();
  auto gw = h.start_gateway();
  // The dead holder's lease is still valid for about a minute; the new
  // process sees that its holder is gone and takes it.
  REQUIRE(gw.wait_for_log(owns_schedules, std::chrono::seconds(20)));
  auto took = std::chrono::steady_clock::now() - started;
  MESSAGE("lease taken back after "
          << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
          << " ms");
  CHECK(gw.err().find("held by") == std::string::npos);
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(30)) == 0);
}

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

constexpr int drain_s = 2;

json drain_config(json extra = json::object()) {
  json cfg{{"gateway", {{"drainSeconds", drain_s}}}};
  cfg.merge_patch(extra);
  return cfg;
}

/// SIGTERM, then a clean exit no later than the drain plus 5 s.
void stop_within_drain(child_process& gw) {
  auto signalled = clock_type::now();
  gw.signal(SIGTERM);
  auto code = gw.wait(std::chrono::seconds(60));
  auto took = seconds_since(signalled);
  MESSAGE("exit " << code << " after " << took << " s (drain " << drain_s << " s)");
  CHECK(code == 0);
  CHECK(took < drain_s + 5);
}

} // namespace

TEST_CASE("SIGTERM during a 60 s model call exits within the drain plus 5 s") {
  fake_llm llm;
  auto slow = text("far too late");
  slow.delay = std::chrono::seconds(60);
  llm.push(slow);
  home_with_config h{custom_provider(llm), drain_config()};
  auto gw = h.start_gateway();
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
  auto pending = std::async(std::launch::async,
                            [&] { return h.post_chat("a slow question", "slow", 90); });
  REQUIRE(eventually([&] { return llm.request_count() == 1; },
                     std::chrono::seconds(10)));
  stop_within_drain(gw);
  CHECK(gw.err().find("stopped cleanly") != std::string::npos);
  // The waiting client heard that the gateway stopped.
  auto res = pending.get();
  REQUIRE(res);
  CHECK(res->status == 503);
  // The question is kept for the next start.
  auto kept = session_messages(h.loaded(), "api:slow");
  REQUIRE_FALSE(kept.empty());
  CHECK(kept[0]["content"] == "a slow question");
}

TEST_CASE("SIGTERM during a 100 s exec kills its process group and exits in time") {
  fake_llm llm;
  llm.push(tool_calls({call("long", "exec", json{{"command", "sleep 100"}})}));
  home_with_config h{custom_provider(llm),
                     drain_config({{"tools", {{"exec", {{"timeout", 200}}}}}})};
  auto gw = h.start_gateway();
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
  auto pending = std::async(std::launch::async,
                            [&] { return h.post_chat("run the long job", "job", 120); });
  std::vector<int> sleepers;
  REQUIRE(eventually([&] {
    sleepers = descendants_named("sleep", gw.pid());
    return !sleepers.empty();
  }, std::chrono::seconds(15)));
  stop_within_drain(gw);
  // The command did not outlive the gateway.
  for (auto pid : sleepers)
    CHECK(eventually([&] { return proc_gone(pid); }, std::chrono::seconds(3)));
  pending.wait();
}

TEST_CASE("a second SIGTERM ends a draining gateway at once") {
  fake_llm llm;
  auto slow = text("far too late");
  slow.delay = std::chrono::seconds(60);
  llm.push(slow);
  // A long drain: only the second signal can end it early.
  home_with_config h{custom_provider(llm), {{"gateway", {{"drainSeconds", 60}}}}};
  auto gw = h.start_gateway();
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
  auto pending = std::async(std::launch::async,
                            [&] { return h.post_chat("a slow question", "slow", 90); });
  REQUIRE(eventually([&] { return llm.request_count() == 1; },
                     std::chrono::seconds(10)));
  gw.signal(SIGTERM);
  REQUIRE(gw.wait_for_log("shutting down", std::chrono::seconds(5)));
  // The log line comes just before the API is told to refuse new work.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // New requests are refused while the drain runs.
  auto refused = h.post_chat("too late to ask", "other", 10);
  REQUIRE(refused);
  CHECK(refused->status == 503);
  auto signalled = clock_type::now();
  gw.signal(SIGTERM);
  auto code = gw.wait(std::chrono::seconds(30));
  auto took = seconds_since(signalled);
  MESSAGE("exit " << code << " after " << took << " s");
  CHECK(code == 128 + SIGTERM);
  CHECK(took < 3);
  CHECK(gw.err().find("received again") != std::string::npos);
  pending.wait();
}
