// One channel reconfigured in a running manager (the WebUI's settings):
// a bad channels.<name> is refused naming the key, with nothing changed; a
// good one restarts that channel only. Two real WebSocket channels on
// loopback ports chosen by the system: a restarted one binds a new port,
// the other keeps its own.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <caf/all.hpp>

#include "actors/channels/manager/manager.hpp"
#include "config/load.hpp"
#include "messages/channel_admin.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using namespace std::chrono_literals;

namespace {

std::string config_with(const std::string& b) {
  return R"({"channels": {"a": {"type": "websocket", "enabled": true, "port": 0},
                           "b": )" + b + "}}";
}

const std::string b_plain = R"({"type": "websocket", "enabled": true, "port": 0})";

struct manager_fixture : test::system_fixture {
  test::scratch_dir dir;
  caf::scoped_actor self{sys};
  channel_manager_admin_actor manager;

  manager_fixture() {
    auto loaded = parse_settings(config_with(b_plain), dir.at("config.json"));
    REQUIRE(std::holds_alternative<loaded_settings>(loaded));
    auto m = spawn_channel_manager(sys, std::get<loaded_settings>(loaded).value,
                                   router_actor{}, stats_actor{});
    manager = caf::actor_cast<channel_manager_admin_actor>(m);
  }

  ~manager_fixture() {
    self->send_exit(manager, caf::exit_reason::user_shutdown);
    self->wait_for(manager);
  }

  std::map<std::string, channel_status> states() {
    std::map<std::string, channel_status> out;
    self->request(manager, 5s, channel_status_atom::value)
      .receive(
        [&](std::vector<channel_status>& all) {
          for (auto& s : all)
            out[s.name] = s;
        },
        [](caf::error& err) { FAIL(to_string(err)); });
    return out;
  }

  /// The states once `pred` holds for them (adapters start on their own
  /// threads).
  template <class Pred>
  std::map<std::string, channel_status> states_when(Pred pred) {
    for (int i = 0; i < 200; ++i) {
      auto s = states();
      if (pred(s))
        return s;
      std::this_thread::sleep_for(50ms);
    }
    FAIL("the channels never reached the expected states");
    return {};
  }

  /// "" when the manager took it, else its error.
  std::string reconfigure(const std::string& b, bool dry_run) {
    std::string out;
    self->request(manager, 10s, channel_reconfigure_atom::value,
                  std::string{"b"}, config_with(b), dry_run)
      .receive([&](std::string& why) { out = std::move(why); },
               [&](caf::error& err) { out = to_string(err); });
    return out;
  }
};

bool both_connected(std::map<std::string, channel_status>& s) {
  return s["a"].state == "connected" && s["b"].state == "connected";
}

} // namespace

TEST_CASE_FIXTURE(manager_fixture,
                  "a changed channel restarts alone; bad settings change nothing") {
  auto before = states_when(both_connected);
  // Refused, naming the key, and nothing restarts.
  auto e = reconfigure(R"({"enabled": true, "type": "websocket",
                           "groupPolicy": "sometimes"})", false);
  CHECK(e.find("channels.b.groupPolicy") != std::string::npos);
  e = reconfigure(R"({"enabled": true, "type": "nosuch"})", true);
  CHECK(e.find("channels.b.type") != std::string::npos);
  e = reconfigure(R"({"enabled": "yes"})", true);
  CHECK(e.find("channels.b") != std::string::npos);
  CHECK(states()["b"].detail == before["b"].detail);
  // A dry run of good settings changes nothing either.
  CHECK(reconfigure(b_plain, true).empty());
  CHECK(states()["b"].detail == before["b"].detail);
  // Applied: b comes back on a new port, a keeps its own.
  REQUIRE(reconfigure(b_plain, false).empty());
  auto after = states_when([&](std::map<std::string, channel_status>& s) {
    return both_connected(s) && s["b"].detail != before["b"].detail;
  });
  CHECK(after["a"].detail == before["a"].detail);
  // Disabled: b stops, a keeps running.
  REQUIRE(reconfigure(R"({"type": "websocket", "enabled": false})", false).empty());
  auto off = states_when([](std::map<std::string, channel_status>& s) {
    return s["b"].state == "disabled";
  });
  CHECK(off["a"].state == "connected");
  CHECK(off["a"].detail == before["a"].detail);
}

TEST_CASE_FIXTURE(manager_fixture,
                  "a channel restarted on the same port gets it back") {
  // The manager starts the new adapter once the old one is down; the old
  // WebSocket channel is down only after its server let go of the port.
  // b's settings name the port its running server holds (chosen by the
  // system at start): each restart must wait for the old server to let go.
  auto detail = states_when(both_connected)["b"].detail; // ws://host:port/
  auto colon = detail.rfind(':');
  auto port = detail.substr(colon + 1, detail.find('/', colon) - colon - 1);
  REQUIRE(!port.empty());
  for (int round = 0; round < 3; ++round) {
    auto with_token = R"({"type": "websocket", "enabled": true, "port": )"
                      + port + R"(, "token": "t)" + std::to_string(round)
                      + R"("})";
    REQUIRE(reconfigure(with_token, false).empty());
    auto s = states_when([&](std::map<std::string, channel_status>& now) {
      return now["b"].state == "connected" || now["b"].state == "error";
    });
    CHECK_MESSAGE(s["b"].state == "connected", s["b"].detail);
    CHECK(s["b"].detail.find(":" + port + "/") != std::string::npos);
  }
}

TEST_CASE_FIXTURE(
  manager_fixture,
  "a new channel is checked by its adapter, then starts alone") {
  auto before = states_when(both_connected);
  auto add = [&](const std::string& c, bool dry_run) {
    std::string out;
    auto text = R"({"channels": {"a": {"type": "websocket", "enabled": true,
                                        "port": 0}, "b": )"
                + b_plain + R"(, "tg": )" + c + "}}";
    self
      ->request(manager, 10s, channel_reconfigure_atom::value,
                std::string{"tg"}, text, dry_run)
      .receive([&](std::string& why) { out = std::move(why); },
               [&](caf::error& err) { out = to_string(err); });
    return out;
  };
  // The Telegram adapter's own reading: its token is named.
  auto e = add(R"({"type": "telegram", "enabled": true})", false);
  CHECK(e.find("channels.tg.token") != std::string::npos);
  CHECK(e.find("missing") != std::string::npos);
  e = add(R"({"type": "telegram", "enabled": true, "token": "1:x",
             "pollTimeout": 99})",
          true);
  CHECK(e.find("channels.tg.pollTimeout") != std::string::npos);
  CHECK(states().count("tg") == 0);
  // A new WebSocket channel starts; a and b keep their servers.
  REQUIRE(
    add(R"({"type": "websocket", "enabled": true, "port": 0})", false).empty());
  auto after = states_when([](std::map<std::string, channel_status>& s) {
    return s["tg"].state == "connected";
  });
  CHECK(after["a"].detail == before["a"].detail);
  CHECK(after["b"].detail == before["b"].detail);
  // The kinds a new channel may have, with the keys each needs.
  std::string kinds;
  self->request(manager, 5s, channel_kinds_atom::value)
    .receive([&](std::string& k) { kinds = std::move(k); },
             [](caf::error& err) { FAIL(to_string(err)); });
  CHECK(kinds.find(R"({"required":["token"],"type":"telegram"})")
        != std::string::npos);
  CHECK(kinds.find(R"("type":"websocket")") != std::string::npos);
}
