// The WebSocket tests' gateway: the real actor tree with chat channels
// from JSON, the scripted LLM, and helpers to read a browser's events.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <caf/scoped_actor.hpp>
#include <nlohmann/json.hpp>

#include "actors/supervisor/runtime.hpp"
#include "tests/integration/channel_port.hpp"
#include "tests/integration/harness.hpp"
#include "tests/websocket/ws_client.hpp"

namespace nb::test {

using nlohmann::json;
using namespace std::chrono_literals;

struct gateway {
  temp_home home;
  fake_llm llm;
  settings cfg;
  std::unique_ptr<runtime> rt;

  /// `adjust` changes the settings before the gateway starts (agents,
  /// bindings, ...).
  explicit gateway(std::map<std::string, std::string> channels,
                   const std::function<void(settings&)>& adjust = {}) {
    cfg = settings_for(home, llm);
    if (adjust)
      adjust(cfg);
    for (auto& [name, raw] : channels) {
      auto obj = json::parse(raw);
      cfg.channels[name] = {obj.value("enabled", true), raw};
    }
    rt = std::make_unique<runtime>(cfg, true);
  }

  std::vector<channel_status> status() {
    std::vector<channel_status> out;
    caf::scoped_actor self{rt->system()};
    self->request(rt->channels(), 10s, channel_status_atom::value)
      .receive([&](std::vector<channel_status>& all) { out = std::move(all); },
               [&](caf::error& err) {
                 FAIL("no channel status: " << rt->system().render(err));
               });
    return out;
  }

  channel_status status_of(const std::string& name) {
    for (auto& s : status())
      if (s.name == name)
        return s;
    FAIL("no channel " << name);
    return {};
  }

  /// The port a WebSocket channel listens on, from its status detail.
  int port(const std::string& name) {
    int p = channel_port(*rt, name);
    REQUIRE_MESSAGE(p != 0, name << ": " << status_of(name).detail);
    return p;
  }
};

/// Events until `stop` says so (inclusive) or `timeout` passes.
inline std::vector<json> read_until(ws_client& c, std::chrono::milliseconds timeout,
                             const std::function<bool(const json&)>& stop) {
  std::vector<json> out;
  auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      until - std::chrono::steady_clock::now());
    auto text = c.read_text(left);
    if (!text)
      break;
    out.push_back(json::parse(*text));
    if (stop(out.back()))
      break;
  }
  return out;
}

inline bool is(const json& ev, const char* name) {
  return ev.value("event", "") == name;
}

inline std::string ready_chat(ws_client& c) {
  auto evs = read_until(c, 10s, [](const json& e) { return is(e, "ready"); });
  REQUIRE(!evs.empty());
  REQUIRE(is(evs.back(), "ready"));
  return evs.back()["chat_id"];
}

/// The first message event's text, waiting up to `timeout`.
inline std::string next_message(ws_client& c, std::chrono::milliseconds timeout = 30s) {
  auto evs = read_until(c, timeout, [](const json& e) {
    return is(e, "message");
  });
  REQUIRE_MESSAGE(!evs.empty(), "no event arrived");
  REQUIRE_MESSAGE(is(evs.back(), "message"), evs.back().dump());
  return evs.back()["text"];
}

/// The next message that is not a progress line (tool hints carry "kind").
inline std::string final_message(ws_client& c) {
  auto evs = read_until(c, 30s, [](const json& e) {
    return is(e, "message") && !e.contains("kind");
  });
  REQUIRE_FALSE(evs.empty());
  return evs.back().value("text", "");
}

} // namespace nb::test
