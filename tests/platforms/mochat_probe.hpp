// The Mochat adapter started against the scripted Mochat, the test playing
// the channel manager.
#pragma once

#include <chrono>
#include <string>

#include <doctest/doctest.h>

#include "actors/channels/mochat/mochat_channel.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_mochat.hpp"

namespace nb::test {

struct mochat_probe : adapter_probe {
  temp_dir dir;
  fake_mochat api;

  explicit mochat_probe(int ping_interval_ms = 1000, int ping_timeout_ms = 1000)
      : api(ping_interval_ms, ping_timeout_ms) {}
  ~mochat_probe() { stop(); }

  void start(nlohmann::json extra = nlohmann::json::object()) {
    nlohmann::json raw{{"enabled", true},
                       {"baseUrl", api.base_url()},
                       {"socketUrl", api.socket_url()},
                       {"clawToken", fake_mochat::token},
                       {"agentUserId", fake_mochat::agent},
                       {"sessions", {"session_a"}},
                       {"panels", {"panel-1"}},
                       {"socketReconnectDelayMs", 100},
                       {"socketMaxReconnectDelayMs", 500}};
    raw.update(extra);
    adapter =
      mochat::make_channel(sys, channel_settings_for("mochat", raw, dir.path),
                           "mochat", as_manager());
  }

  /// Connected and subscribed (the subscribeSessions answer is in).
  void start_subscribed(nlohmann::json extra = nlohmann::json::object()) {
    start(std::move(extra));
    REQUIRE(api.wait_connections(1, std::chrono::seconds(10)));
    REQUIRE(eventually([&] { return !api.subscriptions().empty(); },
                       std::chrono::seconds(10)));
    REQUIRE(api.subscriptions().size() == 1);
    REQUIRE(wait_state("connected"));
  }

  std::string cursor_file() const {
    return dir.path + "/mochat/session_cursors.json";
  }
};

} // namespace nb::test
