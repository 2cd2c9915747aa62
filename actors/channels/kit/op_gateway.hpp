// The gateway WebSocket Discord introduced and QQ's bot API copied: op 10
// Hello, 2 Identify, 1 Heartbeat / 11 ACK, 0 Dispatch with sequence
// numbers, 6 Resume, 7 Reconnect, 9 Invalid Session. One loop thread per
// adapter; the platform supplies the payloads and handles the dispatches.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/channels/kit/adapter.hpp"

namespace nb::chan {

/// What READY told the gateway.
struct gateway_ready {
  std::string detail;     ///< for the status ("as <name>")
  std::string resume_url; ///< where to RESUME ("" = the same URL)
};

struct gateway_protocol {
  std::string name; ///< the channel name (for logs)
  /// The URL to open for a fresh session; "" with `error` set when it is
  /// unknown (`fatal`: the credentials were refused, give up).
  std::function<std::string(std::string& error, bool& fatal)> gateway_url;
  /// Appended to the URL ("v=10&encoding=json"); "" for none.
  std::string query;
  /// The "d" of Identify (op 2) and Resume (op 6); "" error: not now.
  std::function<nlohmann::json(std::string& error, bool& fatal)> identify;
  std::function<nlohmann::json(const std::string& session_id, int64_t seq,
                               std::string& error, bool& fatal)>
    resume;
  /// READY's "d" (the session id is taken by the gateway).
  std::function<gateway_ready(const nlohmann::json& d)> ready;
  /// Every other dispatch. True when its sequence may be confirmed now; a
  /// message answers true only once it is in the inbox journal (false: a
  /// RESUME from the last confirmed sequence sends it again).
  std::function<bool(const std::string& type, const nlohmann::json& d)>
    dispatch;
  /// Close codes that end the adapter ("error") or the session (a fresh
  /// Identify instead of a Resume).
  std::function<bool(int code)> fatal_close;
  std::function<bool(int code)> session_lost_close;
};

/// Starts the loop: connect, Hello, Identify (or Resume after a drop, with
/// the last confirmed sequence), heartbeats every heartbeat_interval (an
/// unanswered one counts as a dead connection), dispatches in order (ones
/// at or below the confirmed sequence are replays, skipped), reconnects
/// with back-off. Reports connecting/connected/disconnected/error.
std::unique_ptr<inbound_loop> start_op_gateway(gateway_protocol proto,
                                               adapter_front_actor front);

} // namespace nb::chan
