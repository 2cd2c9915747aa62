// The official QQ bot: a message event's sequence number is confirmed
// (heartbeats, RESUME) only once the inbox journal has it.
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/fake_qq.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("crash: qq keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  fake_qq qq;
  crash_home h{llm, {{"channels",
                      {{"qq",
                        {{"enabled", true},
                         {"appId", fake_qq::app_id},
                         {"secret", fake_qq::secret},
                         {"apiBase", qq.base_url()},
                         {"tokenBase", qq.base_url()},
                         {"allowFrom", {"U1"}}}}}}}};
  platform_driver p;
  p.send = [&](const std::string& text) {
    // QQ sends a session only what arrives after it identified.
    REQUIRE(qq.wait_sessions(1, std::chrono::seconds(10)));
    qq.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U1", text));
  };
  p.all_acknowledged = [&] { return qq.confirmed_seq() >= qq.last_seq(); };
  p.session_key = "qq:U1";
  slow_then_five_then_kill(h, llm, p, stop_signal);
}
