#include "actors/channels/mochat/socketio_client.hpp"

namespace nb::mochat {

namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

milliseconds left_until(steady::time_point end) {
  auto d = std::chrono::duration_cast<milliseconds>(end - steady::now());
  return d.count() > 0 ? d : milliseconds(0);
}

} // namespace

std::string socketio_client::open(const std::string& url, const json& auth,
                                  milliseconds timeout, bool& refused) {
  refused = false;
  open_ = false;
  ended_.clear();
  auto end = steady::now() + timeout;
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  if (auto err = ws_.connect(url, std::max(secs, std::chrono::seconds(1)));
      !err.empty())
    return "websocket: " + err;
  // The server speaks first: "0{sid, pingInterval, pingTimeout, ...}".
  auto first = ws_.read(left_until(end));
  if (!first) {
    ws_.drop();
    return "no Engine.IO open packet";
  }
  std::string why;
  auto pkt = sio::read_eio(*first, why);
  if (!pkt || pkt->type != sio::eio_type::open) {
    ws_.drop();
    return "expected the Engine.IO open packet, got " + first->substr(0, 100);
  }
  auto hs = sio::read_handshake(pkt->data, why);
  if (!hs) {
    ws_.drop();
    return why;
  }
  hs_ = *hs;
  last_ping_ = steady::now();
  if (auto err = send(sio::connect_frame("/", auth)); !err.empty())
    return err;
  while (steady::now() < end) {
    std::string skipped;
    auto p = next(left_until(end), skipped);
    if (!alive())
      return "connection ended during CONNECT: " + ended_;
    if (!p)
      continue;
    if (p->type == sio::sio_type::connect) {
      open_ = true;
      return "";
    }
    if (p->type == sio::sio_type::connect_error) {
      refused = true;
      ws_.close(1000);
      auto msg =
        p->data.is_object() ? p->data.value("message", json{}) : p->data;
      return "CONNECT_ERROR: "
             + (msg.is_string() ? msg.get<std::string>() : msg.dump());
    }
  }
  ws_.drop();
  return "no CONNECT answer within the connect timeout";
}

std::optional<sio::sio_packet> socketio_client::next(milliseconds timeout,
                                                     std::string& skipped) {
  auto end = steady::now() + timeout;
  for (;;) {
    if (!alive())
      return std::nullopt;
    // Wake in time to notice an overdue ping.
    auto overdue =
      last_ping_ + milliseconds(hs_.ping_interval_ms + hs_.ping_timeout_ms);
    auto wait = std::min(left_until(end), left_until(overdue));
    auto frame = ws_.read(std::max(wait, milliseconds(1)));
    if (!frame) {
      if (steady::now() >= end || !alive())
        return std::nullopt;
      continue;
    }
    std::string why;
    auto pkt = sio::read_eio(*frame, why);
    if (!pkt) {
      skipped = why + ": " + frame->substr(0, 200);
      return std::nullopt;
    }
    switch (pkt->type) {
    case sio::eio_type::ping:
      last_ping_ = steady::now();
      send(std::string{sio::pong_frame} + pkt->data);
      continue;
    case sio::eio_type::close:
      ended_ = "the server closed the Engine.IO session";
      ws_.close(1000);
      return std::nullopt;
    case sio::eio_type::message: {
      auto p = sio::read_sio(pkt->data, why);
      if (!p) {
        skipped = why + ": " + frame->substr(0, 200);
        return std::nullopt;
      }
      if (p->nsp != "/")
        continue; // only the main namespace is joined
      if (p->type == sio::sio_type::disconnect) {
        ended_ = "the server disconnected the socket";
        ws_.close(1000);
        return std::nullopt;
      }
      return p;
    }
    default:
      continue; // noop, pong, upgrade: nothing to do on a WebSocket
    }
  }
}

bool socketio_client::alive() {
  if (!ended_.empty())
    return false;
  if (!ws_.is_open()) {
    ended_ = "connection closed"
             + (ws_.close_reason().empty() ? std::string{}
                                           : ": " + ws_.close_reason());
    return false;
  }
  if (steady::now() - last_ping_
      > milliseconds(hs_.ping_interval_ms + hs_.ping_timeout_ms)) {
    ended_ = "ping timeout: no ping from the server in "
             + std::to_string(hs_.ping_interval_ms + hs_.ping_timeout_ms)
             + " ms";
    ws_.drop();
    return false;
  }
  return true;
}

std::string socketio_client::emit(const std::string& name, const json& args,
                                  std::optional<int64_t> id) {
  return send(sio::event_frame("/", name, args, id));
}

std::string socketio_client::ack(int64_t id, const json& args) {
  return send(sio::ack_frame("/", id, args));
}

std::string socketio_client::send(const std::string& frame) {
  auto err = ws_.send(frame);
  if (!err.empty() && ended_.empty())
    ended_ = "send failed: " + err;
  return err;
}

void socketio_client::close() {
  if (ws_.is_open()) {
    if (open_)
      ws_.send("41");
    ws_.send("1");
    ws_.close(1000);
  }
  open_ = false;
}

} // namespace nb::mochat
