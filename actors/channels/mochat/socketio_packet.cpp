#include "actors/channels/mochat/socketio_packet.hpp"

namespace nb::mochat::sio {

namespace {

using nlohmann::json;

/// Ack ids are JavaScript numbers on the server: 15 digits stay exact.
constexpr size_t max_id_digits = 15;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string nsp_prefix(const std::string& nsp) {
  return nsp.empty() || nsp == "/" ? std::string{} : nsp + ",";
}

/// Whether `data` has the shape a packet of type `t` carries.
bool payload_fits(sio_type t, const json& data, std::string& why) {
  switch (t) {
  case sio_type::connect:
    if (data.is_null() || data.is_object())
      return true;
    why = "CONNECT payload is not an object";
    return false;
  case sio_type::disconnect:
    if (data.is_null())
      return true;
    why = "DISCONNECT has a payload";
    return false;
  case sio_type::event:
    if (data.is_array() && !data.empty() && data[0].is_string())
      return true;
    why = "EVENT payload is not an array starting with the event's name";
    return false;
  case sio_type::ack:
    if (data.is_array())
      return true;
    why = "ACK payload is not an array";
    return false;
  case sio_type::connect_error:
    if (data.is_object() || data.is_string())
      return true;
    why = "CONNECT_ERROR payload is not an object or a string";
    return false;
  default:
    why = "binary packets are not used with the JSON encoding";
    return false;
  }
}

} // namespace

std::optional<eio_packet> read_eio(std::string_view frame, std::string& why) {
  if (frame.empty()) {
    why = "empty Engine.IO packet";
    return std::nullopt;
  }
  if (frame[0] < '0' || frame[0] > '6') {
    why = std::string{"unknown Engine.IO packet type '"} + frame[0] + "'";
    return std::nullopt;
  }
  return eio_packet{static_cast<eio_type>(frame[0]),
                    std::string{frame.substr(1)}};
}

std::optional<eio_handshake> read_handshake(std::string_view data,
                                            std::string& why) {
  auto doc = json::parse(data, nullptr, false);
  if (!doc.is_object()) {
    why = "open packet is not a JSON object";
    return std::nullopt;
  }
  eio_handshake h;
  auto sid = doc.find("sid");
  if (sid == doc.end() || !sid->is_string()
      || sid->get<std::string>().empty()) {
    why = "open packet has no sid";
    return std::nullopt;
  }
  h.sid = sid->get<std::string>();
  auto positive = [&](const char* key, int64_t& out) {
    auto it = doc.find(key);
    if (it == doc.end())
      return true; // the defaults of the protocol
    if (!it->is_number_integer() || it->get<int64_t>() <= 0
        || it->get<int64_t>() > int64_t{24} * 3600 * 1000) {
      why = std::string{"open packet's "} + key + " is not a positive number";
      return false;
    }
    out = it->get<int64_t>();
    return true;
  };
  if (!positive("pingInterval", h.ping_interval_ms)
      || !positive("pingTimeout", h.ping_timeout_ms)
      || !positive("maxPayload", h.max_payload))
    return std::nullopt;
  return h;
}

std::optional<sio_packet> read_sio(std::string_view data, std::string& why) {
  if (data.empty() || data[0] < '0' || data[0] > '6') {
    why = data.empty()
            ? "empty Socket.IO packet"
            : std::string{"unknown Socket.IO packet type '"} + data[0] + "'";
    return std::nullopt;
  }
  sio_packet p;
  p.type = static_cast<sio_type>(data[0] - '0');
  size_t i = 1;
  if (p.type == sio_type::binary_event || p.type == sio_type::binary_ack) {
    why = "binary packets are not used with the JSON encoding";
    return std::nullopt;
  }
  if (i < data.size() && data[i] == '/') {
    auto comma = data.find(',', i);
    if (comma == std::string_view::npos) {
      // "40/chat" (a connect without payload) ends at the namespace.
      if (data.find_first_of("[{\"", i) != std::string_view::npos) {
        why = "namespace without its ','";
        return std::nullopt;
      }
      p.nsp = std::string{data.substr(i)};
      i = data.size();
    } else {
      p.nsp = std::string{data.substr(i, comma - i)};
      i = comma + 1;
    }
  }
  size_t digits = 0;
  while (i + digits < data.size() && is_digit(data[i + digits]))
    ++digits;
  if (digits > 0) {
    if (digits > max_id_digits) {
      why = "ack id out of range";
      return std::nullopt;
    }
    p.id = std::stoll(std::string{data.substr(i, digits)});
    i += digits;
  }
  if (i < data.size()) {
    p.data = json::parse(data.substr(i), nullptr, false);
    if (p.data.is_discarded()) {
      why = "payload is not JSON";
      return std::nullopt;
    }
  }
  if (p.type == sio_type::ack && !p.id) {
    why = "ACK without an id";
    return std::nullopt;
  }
  if (!payload_fits(p.type, p.data, why))
    return std::nullopt;
  return p;
}

std::string write_sio(const sio_packet& p) {
  std::string out(1, static_cast<char>('0' + static_cast<int>(p.type)));
  out += nsp_prefix(p.nsp);
  if (p.id)
    out += std::to_string(*p.id);
  if (!p.data.is_null())
    out += p.data.dump();
  return out;
}

std::string connect_frame(const std::string& nsp, const json& auth) {
  return "4" + write_sio({sio_type::connect, nsp, std::nullopt, auth});
}

std::string event_frame(const std::string& nsp, const std::string& name,
                        const json& args, std::optional<int64_t> id) {
  json data = json::array({name});
  if (args.is_array())
    for (const auto& a : args)
      data.push_back(a);
  else if (!args.is_null())
    data.push_back(args);
  return "4" + write_sio({sio_type::event, nsp, id, std::move(data)});
}

std::string ack_frame(const std::string& nsp, int64_t id, const json& args) {
  return "4"
         + write_sio({sio_type::ack, nsp, id,
                      args.is_array() ? args : json::array({args})});
}

std::string event_name(const sio_packet& p) {
  if (p.type != sio_type::event || !p.data.is_array() || p.data.empty()
      || !p.data[0].is_string())
    return "";
  return p.data[0].get<std::string>();
}

const json& first_arg(const sio_packet& p) {
  static const json none;
  if (p.type == sio_type::event && p.data.is_array() && p.data.size() > 1)
    return p.data[1];
  if (p.type == sio_type::ack && p.data.is_array() && !p.data.empty())
    return p.data[0];
  return none;
}

std::string websocket_url(const std::string& base, const std::string& path,
                          std::string& why) {
  std::string scheme;
  std::string rest;
  for (const char* s : {"http://", "https://", "ws://", "wss://"}) {
    std::string_view sv{s};
    if (base.compare(0, sv.size(), sv) == 0) {
      scheme = (sv == "https://" || sv == "wss://") ? "wss://" : "ws://";
      rest = base.substr(sv.size());
      break;
    }
  }
  if (scheme.empty()) {
    why = "expected an http(s):// or ws(s):// URL";
    return "";
  }
  auto host = rest.substr(0, rest.find_first_of("/?#"));
  if (host.empty()) {
    why = "the URL has no host";
    return "";
  }
  std::string p = path.empty() ? "/socket.io" : path;
  if (p.front() != '/')
    p.insert(p.begin(), '/');
  while (p.size() > 1 && p.back() == '/')
    p.pop_back();
  return scheme + host + p + "/?EIO=4&transport=websocket";
}

} // namespace nb::mochat::sio
