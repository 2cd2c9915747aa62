// Mochat (Socket.IO): an event is acknowledged, and the session's cursor
// stored, only once the inbox journal has its message; after a restart the
// subscription asks for what came after the stored cursor.
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/fake_mochat.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("crash: mochat keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  fake_mochat mo;
  crash_home h{llm,
               {{"channels",
                 {{"mochat",
                   {{"enabled", true},
                    {"baseUrl", mo.base_url()},
                    {"socketUrl", mo.socket_url()},
                    {"clawToken", fake_mochat::token},
                    {"agentUserId", fake_mochat::agent},
                    {"sessions", {"session_a"}},
                    {"socketReconnectDelayMs", 200},
                    {"allowFrom", {"u1"}}}}}}}};
  size_t sent = 0;
  platform_driver p;
  p.send = [&](const std::string& text) {
    // A session is watched from its subscription on: what came before is
    // history, which the adapter does not answer (as the original).
    REQUIRE(eventually([&] { return !mo.subscriptions().empty(); },
                       std::chrono::seconds(20)));
    ++sent;
    mo.push_session("session_a", "u1", text, "crash-" + std::to_string(sent));
    // One at a time, so their order is the order they were sent in.
    REQUIRE(mo.wait_acked(sent, std::chrono::seconds(10)));
  };
  p.all_acknowledged = [&] { return mo.acked() >= sent; };
  p.session_key = "mochat:session_a";
  slow_then_five_then_kill(h, llm, p, stop_signal);
}
