// A Socket.IO v4 client on one WebSocket (the kit's ws_connection), used by
// a single thread: the Engine.IO handshake, CONNECT with an auth object on
// the main namespace, pings answered, a missed ping noticed, events and
// acks in and out. No HTTP long-polling: the WebSocket transport only.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/channels/kit/ws_connection.hpp"
#include "actors/channels/mochat/socketio_packet.hpp"

namespace nb::mochat {

class socketio_client {
public:
  /// Connects to `url` (sio::websocket_url), waits for the open packet,
  /// sends CONNECT with `auth` and waits for the server's CONNECT, all
  /// within `timeout`. "" when connected; else why not, with `refused` set
  /// when the server answered CONNECT_ERROR (its message in the text).
  std::string open(const std::string& url, const nlohmann::json& auth,
                   std::chrono::milliseconds timeout, bool& refused);

  /// The next Socket.IO packet on the main namespace, waiting at most
  /// `timeout`; pings are answered on the way. nullopt when none came or
  /// the connection ended (see alive()); a malformed frame is skipped and
  /// described in `skipped` (nullopt returned at once).
  std::optional<sio::sio_packet> next(std::chrono::milliseconds timeout,
                                      std::string& skipped);

  /// False once the connection closed, the server disconnected us or its
  /// ping is overdue (pingInterval + pingTimeout without one).
  bool alive();
  /// Why the connection is not alive.
  const std::string& ended() const { return ended_; }

  /// Emits `name` with `args` (an array of arguments), asking for an ack
  /// with `id` when given. "" or why it failed.
  std::string emit(const std::string& name, const nlohmann::json& args,
                   std::optional<int64_t> id = std::nullopt);
  /// Acknowledges the server's event `id`. "" or why it failed.
  std::string ack(int64_t id,
                  const nlohmann::json& args = nlohmann::json::array());

  /// Closes politely (Socket.IO DISCONNECT, Engine.IO close, close frame).
  void close();
  /// From another thread: makes a blocking call return at once.
  void interrupt() { ws_.interrupt(); }

  const sio::eio_handshake& handshake() const { return hs_; }

private:
  std::string send(const std::string& frame);

  chan::ws_connection ws_;
  sio::eio_handshake hs_;
  std::chrono::steady_clock::time_point last_ping_;
  std::string ended_;
  bool open_ = false;
};

} // namespace nb::mochat
