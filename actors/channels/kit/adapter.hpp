// The actor every chat-platform adapter is made of: a front that answers the
// channel manager at once, a detached sender that does the blocking platform
// calls while there is something to send (sender_slot.hpp), and an inbound
// loop on its own thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/timespan.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "messages/channel.hpp"
#include "messages/errc.hpp"

namespace nb::chan {

/// The inbound side tells the front how the connection is doing.
struct adapter_report {
  std::string state;  ///< connected | connecting | disconnected | error
  std::string detail;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, adapter_report& x) {
  return f(caf::meta::type_name("adapter_report"), x.state, x.detail);
}

/// Whether a progress message is a tool hint: it is unless its metadata
/// says "_tool_hint": false (the manager's sendToolHints and adapters that
/// show hints their own way).
bool is_tool_hint(const outbound_msg& msg);

/// Delivers one outbound message to the platform (blocking calls: spawn it
/// detached). Replies ok once the platform accepted it. It also sees every
/// inbound message first, so a reply can refer to what it answers.
using sender_actor
  = caf::typed_actor<caf::replies_to<outbound_msg>::with<caf::ok_atom>,
                     caf::reacts_to<inbound_msg>>;

/// The front: the channel interface plus what its own inbound loop sends.
/// `inbox_record` is answered once the message is in the inbox journal (or
/// was refused by access control): only then may the loop acknowledge it.
using adapter_front_actor = channel_actor::extend<
  caf::reacts_to<inbound_msg>, caf::reacts_to<adapter_report>,
  caf::replies_to<inbox_record>::with<inbox_receipt>>;

/// What hand_over found.
struct hand_over_result {
  size_t recorded = 0; ///< leading messages safe to acknowledge
  std::string error;   ///< why the next one was not (empty: all were)
  /// One per recorded message: an id "" means access control refused it,
  /// `duplicate` that it was a redelivery.
  std::vector<inbox_receipt> receipts;
};

/// From an inbound loop's own thread (it blocks): hands `msgs` to the
/// front in order and waits until each is durable in the inbox journal.
/// The platform may be acknowledged for the first `recorded` messages.
hand_over_result hand_over(const adapter_front_actor& front,
                           std::vector<inbound_msg> msgs,
                           std::chrono::seconds timeout
                           = std::chrono::seconds(30));

/// A platform's inbound side on its own thread; destroying it stops it.
class inbound_loop {
public:
  virtual ~inbound_loop() = default;
};

struct adapter_spec {
  std::string name; ///< the channel name (channels.<name>)
  channel_manager_actor manager;
  /// Non-empty: the config is unusable; the adapter only reports this.
  std::string config_error;
  /// Spawns the sender in `sys` (detached, it blocks); called again for
  /// each message that finds no sender running (sender_slot.hpp).
  std::function<sender_actor(caf::actor_system& sys)> make_sender;
  /// The sender holds what a new one cannot get back: it then runs as long
  /// as the adapter (a Matrix password login makes a new device each time).
  bool keep_sender = false;
  /// A sender stays at least this long after its last send (QQ numbers the
  /// replies to one message for the 5 minutes that message can be answered).
  caf::timespan min_sender_idle{0};
  /// Starts the inbound side; it sends inbound_msg/adapter_report to `front`.
  std::function<std::unique_ptr<inbound_loop>(adapter_front_actor front)>
    make_loop;
};

/// Spawns the adapter. Inbound messages are counted and handed to the
/// manager; outbound ones go to the sender, whose answer (ok or an error)
/// goes back to the manager. Stopping the front stops the loop and sender.
channel_actor spawn_adapter(caf::actor_system& sys, adapter_spec spec);

} // namespace nb::chan
