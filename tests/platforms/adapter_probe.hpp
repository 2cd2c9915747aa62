// Test side of an adapter: the test plays the channel manager (a scoped
// actor receives what the adapter hands on) and asks for status/delivery.
#pragma once

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <optional>
#include <string>
#include <vector>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/system_fixture.hpp"

namespace nb::test {

/// A fresh directory under /tmp, removed with its contents at the end.
struct temp_dir {
  temp_dir() {
    char tmpl[] = "/tmp/nb-chan-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string path;
};

struct adapter_probe : system_fixture {
  caf::scoped_actor self{sys};
  channel_actor adapter;
  int receipts = 0; ///< inbox_record requests answered

  channel_manager_actor as_manager() {
    return caf::actor_cast<channel_manager_actor>(self);
  }

  ~adapter_probe() { stop(); }

  void stop() {
    if (!adapter)
      return;
    // An inbound loop may be waiting for a receipt while it stops: answer
    // until the adapter is down (as the manager would).
    self->monitor(adapter);
    self->send_exit(adapter, caf::exit_reason::user_shutdown);
    bool down = false;
    while (!down)
      self->receive([&](caf::down_msg&) { down = true; },
                    [&](inbox_record&) -> inbox_receipt {
                      return inbox_receipt{"probe.stopping", false};
                    },
                    caf::after(std::chrono::seconds(60)) >> [&] {
                      down = true;
                    });
    adapter = nullptr;
  }

  /// The next inbound message the adapter hands on (nullopt on timeout).
  std::optional<inbound_msg>
  next_inbound(std::chrono::milliseconds t = std::chrono::seconds(10)) {
    std::optional<inbound_msg> out;
    bool done = false;
    while (!done)
      self->receive([&](inbound_msg& m) { out = std::move(m); done = true; },
                    // The manager's journaled path: answered with a receipt,
                    // as the inbox does once the message is on disk.
                    [&](inbox_record& r) -> inbox_receipt {
                      out = std::move(r.msg);
                      done = true;
                      ++receipts;
                      return inbox_receipt{"probe." + std::to_string(receipts),
                                           false};
                    },
                    [&](outbound_msg&) {}, // not expected from an adapter
                    caf::after(t) >> [&] { done = true; });
    return out;
  }

  /// Delivers `m`; "" when the adapter said ok, else the error text.
  std::string deliver(outbound_msg m,
                      std::chrono::seconds t = std::chrono::seconds(30)) {
    std::string out = "no answer";
    self->request(adapter, t, std::move(m))
      .receive([&](caf::ok_atom) { out = ""; },
               [&](caf::error& e) { out = sys.render(e); });
    return out;
  }

  channel_status status() {
    channel_status out;
    self->request(adapter, std::chrono::seconds(5), channel_status_atom::value)
      .receive([&](channel_status& s) { out = std::move(s); },
               [&](caf::error&) { out.state = "no answer"; });
    return out;
  }

  /// Polls status until `state` (false after `t`).
  bool wait_state(const std::string& state,
                  std::chrono::milliseconds t = std::chrono::seconds(10)) {
    auto end = std::chrono::steady_clock::now() + t;
    while (std::chrono::steady_clock::now() < end) {
      if (status().state == state)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
};

inline outbound_msg reply(const std::string& channel, const std::string& chat,
                          const std::string& text,
                          outbound_kind kind = outbound_kind::final_reply,
                          const std::string& stream_id = "") {
  outbound_msg m;
  m.channel = channel;
  m.chat_id = chat;
  m.session_key = channel + ":" + chat;
  m.kind = kind;
  m.content = text;
  m.stream_id = stream_id;
  return m;
}

/// settings whose channels.<name> is `raw`, with config_dir in `dir`.
inline settings channel_settings_for(const std::string& name,
                                     const nlohmann::json& raw,
                                     const std::string& dir) {
  settings s;
  s.config_path = dir + "/config.json";
  s.channels[name].enabled = true;
  s.channels[name].raw_json = raw.dump();
  return s;
}

} // namespace nb::test
