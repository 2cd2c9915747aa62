// hand_over for the adapters that take one message at a time.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "actors/channels/kit/adapter.hpp"

namespace nb::chan {

/// Hands `msg` to the front and waits until it is durable in the inbox
/// journal (or refused by access control): "" then, else why not (the
/// platform must not be acknowledged; it sends the message again).
/// `admitted` (when given) tells whether it went on to an agent: journaled,
/// not refused by access control, not a redelivery. (Without an inbox
/// journal nothing counts as admitted.)
inline std::string hand_over_one(const adapter_front_actor& front,
                                 inbound_msg msg, bool* admitted = nullptr) {
  std::vector<inbound_msg> one;
  one.push_back(std::move(msg));
  auto done = hand_over(front, std::move(one));
  if (admitted)
    *admitted = done.recorded == 1 && !done.receipts.empty()
                && !done.receipts[0].id.empty() && !done.receipts[0].duplicate;
  if (done.recorded == 1)
    return {};
  return done.error.empty() ? std::string{"no receipt"} : done.error;
}

} // namespace nb::chan
