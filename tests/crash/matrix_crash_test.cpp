// Matrix: the /sync since token moves on (and is saved) only once the
// batch's messages are in the inbox journal.
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/fake_matrix.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("crash: matrix keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  fake_matrix mx;
  crash_home h{llm, json{{"channels",
                          {{"matrix",
                            {{"enabled", true},
                             {"homeserver", mx.base_url()},
                             {"accessToken", fake_matrix::token},
                             {"syncTimeoutMs", 500},
                             {"allowFrom", {"*"}}}}}}}};
  int sent = 0;
  platform_driver p;
  p.send = [&](const std::string& text) {
    // The adapter's first sync skips what was posted before it (the gateway
    // is "ready" before that sync): post once it syncs with a token.
    REQUIRE(eventually([&] { return mx.since_syncs() >= 1; },
                       std::chrono::seconds(10)));
    mx.push_text("!dm:local", "@ann:local", text);
    ++sent;
  };
  p.all_acknowledged = [&] { return mx.synced_past() >= static_cast<size_t>(sent); };
  p.session_key = "matrix:!dm:local";
  slow_then_five_then_kill(h, llm, p, stop_signal);
}
