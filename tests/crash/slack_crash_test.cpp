// Slack Socket Mode: an envelope is acknowledged only once the inbox journal
// has its message; unacknowledged envelopes come again on the next
// connection (the scripted Slack keeps that state, as Slack does).
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/fake_slack.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("crash: slack keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  fake_slack slack;
  crash_home h{llm, json{{"channels",
                          {{"slack",
                            {{"enabled", true},
                             {"botToken", fake_slack::bot_token},
                             {"appToken", fake_slack::app_token},
                             {"apiBase", slack.api_base()},
                             {"allowFrom", {"*"}}}}}}}};
  size_t sent = 0;
  platform_driver p;
  p.send = [&](const std::string& text) {
    slack.push_event(fake_slack::message("D1", "U1", text));
    ++sent;
  };
  p.all_acknowledged = [&] { return slack.acked().size() >= sent; };
  p.session_key = "slack:D1";
  slow_then_five_then_kill(h, llm, p, stop_signal);
}
