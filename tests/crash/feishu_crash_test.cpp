// Feishu/Lark long connection: a data frame is acknowledged ({"code":200})
// only once the inbox journal has its message; Feishu sends unacknowledged
// frames again on the next connection.
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/fake_feishu.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("crash: feishu keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  fake_feishu fs;
  crash_home h{llm, {{"channels",
                      {{"feishu",
                        {{"enabled", true},
                         {"appId", fake_feishu::app_id},
                         {"appSecret", fake_feishu::app_secret},
                         {"apiBase", fs.api_base()},
                         {"allowFrom", {"ou_ann"}}}}}}}};
  size_t sent = 0;
  platform_driver p;
  p.send = [&](const std::string& text) {
    fs.push_event(fake_feishu::text_event("oc_dm", "p2p", "ou_ann", text));
    ++sent;
    // One at a time, so their order is the order they were sent in.
    REQUIRE(fs.wait_acked(sent, std::chrono::seconds(10)));
  };
  p.all_acknowledged = [&] { return fs.acked().size() >= sent; };
  p.session_key = "feishu:ou_ann";
  slow_then_five_then_kill(h, llm, p, stop_signal);
}
