// The adapter front's state, shared by its behaviour (adapter.cpp) and its
// outbound half (sender_slot.cpp).
#pragma once

#include <memory>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/kit/sender_slot.hpp"

namespace nb::chan {

struct front_state {
  front_state() = default;
  static inline const char* name = "channel_adapter";

  channel_status status;
  channel_manager_actor manager;
  sender_slot out;
  // Declared last: destroyed first when the actor quits, which stops the
  // loop thread before anything it reports to is gone.
  std::unique_ptr<inbound_loop> loop;
};

using front_pointer = adapter_front_actor::stateful_pointer<front_state>;

/// Hands `msg` to the sender (starting one when none runs); the answer
/// (ok, or the sender's error) goes to the requester.
caf::result<caf::ok_atom> send_out(front_pointer self, outbound_msg msg);

/// Shows `msg` to the running sender and keeps it for the next one.
void note_inbound(front_pointer self, const inbound_msg& msg);

/// The down message of a retired sender: starts the next one when messages
/// wait for it.
void on_sender_down(front_pointer self, const caf::down_msg& down);

} // namespace nb::chan
