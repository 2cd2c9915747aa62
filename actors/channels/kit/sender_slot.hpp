// The adapter front's outbound half: the sender (a detached actor, so a
// thread) runs only while there is something to send (issue 22: idle threads
// exit). It starts with the first outbound message and is told to quit once
// nothing was sent for the idle time and no stream is open; the next message
// starts a new one. Order per adapter is kept by a handshake, not a timer:
// the front retires a sender only when every request to it was answered, and
// starts the next one only after the retired one is down (messages arriving
// in between wait in the front, in order).
//
// A sender keeps what it learned from inbound messages (the message to reply
// to, a mail thread, a group flag): the front keeps the newest inbound
// message per chat and session (without content and media, at most
// `remembered_chats`) and shows those to each new sender before anything
// else, as if it had seen them.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>

#include <caf/actor_addr.hpp>
#include <caf/actor_clock.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/channels/kit/adapter.hpp"

namespace nb::chan {

/// How long a sender stays without anything to send: 60 s, or
/// NANOBOT_SENDER_IDLE_S (seconds, fractions allowed; for tests).
caf::timespan sender_idle_time();

struct sender_slot {
  static constexpr size_t remembered_chats = 1000;

  std::function<sender_actor(caf::actor_system&)> make; ///< empty: none
  caf::timespan idle = std::chrono::seconds(60);
  bool keep = false;      ///< never retire (adapter_spec::keep_sender)
  sender_actor live;      ///< the running sender, or null
  caf::actor_addr retiring; ///< told to quit, not down yet
  size_t in_flight = 0;   ///< requests to `live` not answered yet
  /// When the sender last finished a request; one clock entry at a time
  /// checks it (a streamed reply's every delta is a request: a clock entry
  /// each would wake CAF's clock thread per delta).
  caf::actor_clock::time_point last_active{};
  bool idle_armed = false;
  struct queued {
    outbound_msg msg;
    caf::typed_response_promise<caf::ok_atom> rp;
  };
  std::deque<queued> waiting; ///< arrived while a sender was retiring
  /// chat|stream_id of streams with deltas and no end yet: the sender holds
  /// the message that grows (a stream quiet for 10 idle times is forgotten).
  std::map<std::string, caf::actor_clock::time_point> open_streams;
  std::map<std::string, inbound_msg> latest_inbound; ///< by chat + session
  std::deque<std::string> inbound_order;             ///< oldest key first
};

} // namespace nb::chan
