// Socket.IO v4 over the Engine.IO v4 WebSocket transport with the default
// JSON encoding, as pure functions on the exact text of the frames. One
// WebSocket text frame is one Engine.IO packet: a type digit and its data
// ("0{...}" open, "2" ping, "3" pong, "4..." message). A message carries one
// Socket.IO packet: type digit, "/nsp," unless the namespace is "/", an ack
// id in digits, then the JSON payload ("40{\"token\":..}", "42[\"ev\",{..}]",
// "4312[..]", "44{\"message\":..}").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace nb::mochat::sio {

enum class eio_type : char {
  open = '0',
  close = '1',
  ping = '2',
  pong = '3',
  message = '4',
  upgrade = '5',
  noop = '6',
};

struct eio_packet {
  eio_type type = eio_type::noop;
  std::string data; ///< what follows the type digit
};

/// Reads one Engine.IO packet; nullopt with `why` for an empty frame or an
/// unknown type.
std::optional<eio_packet> read_eio(std::string_view frame, std::string& why);

/// The open packet's data: {"sid","upgrades","pingInterval","pingTimeout",
/// "maxPayload"}.
struct eio_handshake {
  std::string sid;
  int64_t ping_interval_ms = 25000;
  int64_t ping_timeout_ms = 20000;
  int64_t max_payload = 1000000;
};

/// nullopt with `why` when `data` is not an open packet's JSON object with
/// a sid and positive ping timings.
std::optional<eio_handshake> read_handshake(std::string_view data,
                                            std::string& why);

enum class sio_type : int {
  connect = 0,
  disconnect = 1,
  event = 2,
  ack = 3,
  connect_error = 4,
  binary_event = 5,
  binary_ack = 6,
};

struct sio_packet {
  sio_type type = sio_type::event;
  std::string nsp = "/";
  std::optional<int64_t> id; ///< the ack id (events asking for one, acks)
  nlohmann::json data;       ///< null when the packet has no payload
};

/// Reads the Socket.IO packet in a message's data (after the '4'). nullopt
/// with `why` when it is malformed: an unknown type, a namespace without
/// its ',', an ack id out of range, a payload that is not JSON or not the
/// shape its type demands (an event: an array starting with its name; an
/// ack: an array; a connect: an object or nothing; a connect error: an
/// object or a string), or binary attachments (this client speaks JSON).
std::optional<sio_packet> read_sio(std::string_view data, std::string& why);

/// The Socket.IO packet's text (without the Engine.IO '4').
std::string write_sio(const sio_packet& p);

/// Whole WebSocket frames the client sends.
inline constexpr const char* pong_frame = "3";
/// "40{auth}" (or "40/nsp,{auth}").
std::string connect_frame(const std::string& nsp, const nlohmann::json& auth);
/// "42[name,args...]" with the ack id when one is wanted.
std::string event_frame(const std::string& nsp, const std::string& name,
                        const nlohmann::json& args,
                        std::optional<int64_t> id = std::nullopt);
/// "43<id>[args...]".
std::string ack_frame(const std::string& nsp, int64_t id,
                      const nlohmann::json& args = nlohmann::json::array());

/// An event packet's name ("" when it is not an event).
std::string event_name(const sio_packet& p);
/// An event's first argument (null when it has none).
const nlohmann::json& first_arg(const sio_packet& p);

/// The WebSocket URL of a Socket.IO server at `base` (http(s):// or
/// ws(s)://, any path dropped) and `path` ("/socket.io"):
/// "ws://host:port/socket.io/?EIO=4&transport=websocket". "" with `why`
/// when `base` is not such a URL.
std::string websocket_url(const std::string& base, const std::string& path,
                          std::string& why);

} // namespace nb::mochat::sio
