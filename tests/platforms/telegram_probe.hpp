// The Telegram adapter with the scripted Bot API on 127.0.0.1, for the
// tests that drive one adapter (the test plays the channel manager).
#pragma once

#include <nlohmann/json.hpp>

#include "actors/channels/telegram/telegram_channel.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_telegram.hpp"

namespace nb::test {

struct telegram_probe : adapter_probe {
  temp_dir dir;
  fake_telegram api;

  void start(nlohmann::json extra = nlohmann::json::object()) {
    nlohmann::json raw{{"enabled", true}, {"token", "123:ABC"},
                       {"apiBase", api.base_url()}, {"pollTimeout", 1},
                       {"streamEditInterval", 0}};
    raw.update(extra);
    auto s = channel_settings_for("telegram", raw, dir.path);
    adapter = telegram::make_channel(sys, s, "telegram", as_manager());
  }

  ~telegram_probe() { stop(); } // before the fake server goes

  nlohmann::json meta(const inbound_msg& m) {
    return nlohmann::json::parse(m.metadata_json);
  }
};

} // namespace nb::test
