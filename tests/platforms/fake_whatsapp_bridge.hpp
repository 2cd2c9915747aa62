// A scripted nanobot WhatsApp bridge (bridge/src/server.ts): the first
// frame must be {"type":"auth","token"} (else close 4003 "Invalid token");
// then it broadcasts message/qr/status frames and answers each send or
// send_media command with {"type":"sent","to"} or {"type":"error","error"},
// as the real one does.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

class fake_whatsapp_bridge {
public:
  static constexpr const char* token = "bridge-secret";

  fake_whatsapp_bridge();
  ~fake_whatsapp_bridge();

  /// "ws://127.0.0.1:<port>": the bridgeUrl.
  std::string url() const;

  /// A message frame as whatsapp.ts builds it: from `phone`
  /// (<phone>@s.whatsapp.net), or in group <group>@g.us when `group` is set.
  static nlohmann::json message(const std::string& id,
                                const std::string& phone,
                                const std::string& text,
                                const std::string& group = "",
                                bool mentioned = false,
                                std::vector<std::string> media = {});

  /// Sent to the authenticated client (queued until there is one).
  void push(const nlohmann::json& frame);
  void push_raw(const std::string& text);
  /// Sends what is queued, then drops the TCP connection (a bridge crash).
  void drop();
  /// The next `n` commands are answered with an error frame.
  void fail_next(int n, const std::string& error);

  int authenticated() const;
  bool wait_authenticated(int n, std::chrono::milliseconds t) const;
  /// Tokens of every auth frame received (right or wrong).
  std::vector<std::string> tokens() const;
  /// The send / send_media commands received.
  std::vector<nlohmann::json> commands() const;
  bool wait_commands(size_t n, std::chrono::milliseconds t) const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test
