// Waiting for a condition with a deadline, instead of a fixed sleep.
#pragma once

#include <chrono>
#include <thread>

namespace nb::test {

/// Polls `pred` for up to `t`; whether it came true.
template <class Pred>
bool eventually(Pred pred,
                std::chrono::milliseconds t = std::chrono::seconds(20)) {
  auto end = std::chrono::steady_clock::now() + t;
  while (std::chrono::steady_clock::now() < end) {
    if (pred())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

} // namespace nb::test
