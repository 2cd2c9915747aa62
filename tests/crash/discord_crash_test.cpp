// Discord: a message event's sequence number is confirmed (heartbeats,
// RESUME) only once the inbox journal has it.
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/fake_discord.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("crash: discord keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  fake_discord dc;
  crash_home h{llm, json{{"channels",
                          {{"discord",
                            {{"enabled", true},
                             {"token", "disc-token"},
                             {"apiBase", dc.api_base()},
                             {"allowFrom", {"*"}}}}}}}};
  platform_driver p;
  p.send = [&](const std::string& text) {
    // Discord sends a session only what is posted after it identified (the
    // gateway is "ready" before its Discord connection is).
    REQUIRE(dc.wait_sessions(1, std::chrono::seconds(10)));
    dc.push("MESSAGE_CREATE", fake_discord::message("D77", "U1", text));
  };
  p.all_acknowledged = [&] { return dc.confirmed_seq() >= dc.last_seq(); };
  p.session_key = "discord:D77";
  slow_then_five_then_kill(h, llm, p, stop_signal);
}
