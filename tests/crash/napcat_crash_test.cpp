// NapCat (OneBot v11): the protocol has no acknowledgement of events, so a
// message is ours once the inbox journal has it (the gauge); what the
// journal holds survives the crash.
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/fake_napcat.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("crash: napcat keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  fake_napcat nap;
  crash_home h{llm, {{"channels",
                      {{"napcat",
                        {{"enabled", true},
                         {"wsUrl", nap.ws_url()},
                         {"accessToken", "nap-token"},
                         {"allowFrom", {"42"}}}}}}}};
  int sent = 0;
  bool restarted = false; // the new process counts afresh
  platform_driver p;
  p.send = [&](const std::string& text) {
    ++sent;
    nap.push(fake_napcat::private_message(42, text, 3000 + sent));
    // One at a time, so their order is the order they were sent in.
    auto want = sent;
    REQUIRE(eventually([&] { return h.gauge("inbox_appended") >= want; },
                       std::chrono::seconds(10)));
  };
  p.all_acknowledged = [&] {
    return restarted || h.gauge("inbox_appended") >= sent;
  };
  p.after_kill = [&] { restarted = true; };
  p.session_key = "napcat:private:42";
  slow_then_five_then_kill(h, llm, p, stop_signal);
}
