// Waiting for a condition with a deadline instead of a fixed sleep: the one
// helper every test folder uses. Limits are generous (a loaded 2-core CI
// machine); a condition that holds returns at once.
#pragma once

#include <chrono>
#include <thread>

namespace nb::test {

/// Polls `pred` every 10 ms for up to `limit`; whether it came true.
template <class Pred>
bool eventually(Pred pred,
                std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

} // namespace nb::test
