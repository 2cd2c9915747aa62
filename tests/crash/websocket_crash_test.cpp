// The WebSocket channel (WebUI): messages a client sent are in the inbox
// journal before their session sees them; the client's connection dies with
// the gateway.
#include "tests/crash/crash_scenario.hpp"

#include <thread>

#include "actors/channels/kit/ws_connection.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("crash: websocket keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  int port = free_port();
  crash_home h{llm, json{{"channels",
                          {{"websocket",
                            {{"enabled", true},
                             {"port", port},
                             {"streaming", false},
                             {"allowFrom", {"*"}}}}}}}};
  auto client = std::make_shared<chan::ws_connection>();
  int sent = 0;
  platform_driver p;
  p.send = [&](const std::string& text) {
    if (!client->is_open()) {
      // "gateway ready" does not wait for the channels: the listener comes
      // up a moment later (on a loaded machine, later still), and the
      // WebUI reconnects as this does.
      std::string err;
      for (int i = 0; i < 100; ++i) {
        err = client->connect("ws://127.0.0.1:" + std::to_string(port)
                                + "/?client_id=ann&chat_id=room1",
                              std::chrono::seconds(5));
        if (err.empty())
          break;
        client = std::make_shared<chan::ws_connection>();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      REQUIRE(err == "");
    }
    REQUIRE(client->send(json{{"content", text}}.dump()) == "");
    ++sent;
  };
  // The WebSocket protocol has no per-message acknowledgement: the
  // gateway's count of journaled messages says when they are ours.
  bool restarted = false; // the new process counts afresh
  p.all_acknowledged = [&] {
    return restarted || h.gauge("inbox_appended") >= sent;
  };
  p.after_kill = [&] {
    restarted = true;
    client = std::make_shared<chan::ws_connection>();
  };
  p.session_key = "websocket:room1";
  slow_then_five_then_kill(h, llm, p, stop_signal);
}
