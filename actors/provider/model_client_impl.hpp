// The inside of model_client, shared by its two source files (the
// transport in model_client.cpp, the retry loop in model_chat.cpp).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <httplib.h>

#include "actors/provider/model_client.hpp"
#include "actors/provider/openai_wire.hpp"
#include "actors/provider/wire_format.hpp"
#include "actors/provider/retry_policy.hpp"
#include "actors/provider/watchdog.hpp"

namespace nb::detail {

using clock_type = std::chrono::steady_clock;
using ms = std::chrono::milliseconds;

/// A timeout of 0 means "none": a day is as good as forever here.
inline ms or_forever(ms d) {
  return d.count() > 0 ? d : ms{86'400'000};
}

/// The outcome of one HTTP attempt.
struct attempt {
  model_reply reply;
  std::optional<attempt_failure> failure;
  bool deadline_hit = false; ///< the watchdog fired on the deadline
  bool emitted = false;      ///< streamed text reached the caller
};

} // namespace nb::detail

namespace nb {

/// One endpoint: its keep-alive connection and the watchdog that can
/// abort a call on it.
struct model_client::impl {
  provider_choice choice;
  client_options opts;
  std::shared_ptr<const std::atomic<bool>> cancel;
  std::unique_ptr<wire_format> wire;
  std::optional<base_url> base;
  std::unique_ptr<httplib::Client> http; ///< null when base is unusable
  std::unique_ptr<watchdog> dog;

  impl(provider_choice c, client_options o,
       std::shared_ptr<const std::atomic<bool>> cancel_flag);

  bool cancelled() const { return cancel && cancel->load(); }

  /// Sleeps `d` in small steps; false when cancelled meanwhile.
  bool sleep(detail::ms d);

  /// One HTTP attempt; `mute` keeps deltas from the caller.
  detail::attempt run(const std::string& body, bool stream, bool mute,
                      detail::clock_type::time_point call_deadline,
                      const callbacks& cb);

  /// Turns the transport result of a finished attempt into reply/failure.
  void classify(detail::attempt& a, const httplib::Response& res,
                httplib::Error err, const std::string& raw, bool sse,
                bool too_large, stream_decoder& acc);
};

} // namespace nb
