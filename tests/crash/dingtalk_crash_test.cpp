// DingTalk Stream mode: a robot message is acknowledged (its messageId) only
// once the inbox journal has it; DingTalk sends unacknowledged ones again on
// the next connection.
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/fake_dingtalk.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("crash: dingtalk keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  fake_dingtalk dt;
  crash_home h{llm, {{"channels",
                      {{"dingtalk",
                        {{"enabled", true},
                         {"clientId", fake_dingtalk::client_id},
                         {"clientSecret", fake_dingtalk::client_secret},
                         {"apiBase", dt.api_base()},
                         {"allowFrom", {"staff1"}}}}}}}};
  size_t sent = 0;
  platform_driver p;
  p.send = [&](const std::string& text) {
    dt.push(fake_dingtalk::text("staff1", text));
    ++sent;
    // One at a time, so their order is the order they were sent in.
    REQUIRE(dt.wait_acked(sent, std::chrono::seconds(10)));
  };
  p.all_acknowledged = [&] { return dt.acked().size() >= sent; };
  p.session_key = "dingtalk:staff1";
  slow_then_five_then_kill(h, llm, p, stop_signal);
}
