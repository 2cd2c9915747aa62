// A blocking client for one model endpoint (OpenAI chat completions or
// Anthropic Messages, see wire_format.hpp): keep-alive connection,
// streaming, retries, timeouts. Knows nothing about actors; call it from a
// thread that may block.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/provider/provider_registry.hpp"
#include "actors/provider/retry_policy.hpp"
#include "config/settings.hpp"
#include "messages/model.hpp"

namespace nb {

/// Every delay and bound of the client, injectable so tests run fast.
struct client_options {
  using ms = std::chrono::milliseconds;
  ms connect_timeout{10'000};
  /// One non-streamed HTTP attempt (the original's 120 s SDK timeout).
  ms attempt_timeout{120'000};
  /// Wall clock of a whole non-streamed call, retries included
  /// (timeouts.llm_timeout_s); 0 = none.
  ms call_timeout{300'000};
  /// Longest gap between two stream events (stream_idle_timeout_s).
  ms stream_idle_timeout{90'000};
  /// Wall clock of a whole streamed call: max(300 s, 2 x llm timeout).
  ms stream_call_timeout{600'000};
  /// Waits before attempts 2, 3, 4; attempts = size + 1.
  std::vector<ms> retry_delays{ms{1'000}, ms{2'000}, ms{4'000}};
  /// Added to a server's Retry-After hint.
  ms retry_after_buffer{1'000};
  /// Longest wait honoured for a hint (a bound of ours).
  ms max_retry_wait{120'000};
  /// Retry notices repeat at this interval during a long wait.
  ms notice_every{30'000};
  size_t max_response_bytes = size_t{16} << 20;
  /// Extra CA file for HTTPS endpoints with a private CA ("" = system).
  std::string ca_cert_path;
  /// Consecutive failures after which a primary with fallbacks is skipped,
  /// and for how long.
  int breaker_threshold = 3;
  ms breaker_cooldown{60'000};
  /// A provider worker (and its thread) free this long ends: a burst of
  /// calls leaves no more threads behind than the steady load uses, and a
  /// gateway gone quiet keeps none (the soak saw the count step up and stay).
  ms worker_idle_limit{60'000};
};

/// The options that settings.timeouts imply (defaults for the rest).
client_options client_options_from(const settings& cfg);

/// What the caller hears while a call runs (any may be empty).
struct callbacks {
  /// A piece of streamed text; `reasoning` marks thinking text.
  std::function<void(std::string text, bool reasoning)> on_delta;
  /// "Model request failed, retry in 2s (attempt 1)." before each wait.
  std::function<void(std::string)> on_retry_wait;
  /// A tool the provider runs itself began (its name, its arguments as a
  /// JSON object): OpenAI's hosted web search.
  std::function<void(std::string name, std::string arguments_json)>
    on_hosted_tool{};
};

/// How a call ended, beyond the reply (for failover decisions).
struct call_info {
  std::optional<attempt_failure> failure; ///< the last attempt's, if failed
  bool streamed = false; ///< text reached the caller through on_delta
  /// Given: a Responses call may ask for server compaction (the provider
  /// has not seen this endpoint refuse it).
  bool compaction_allowed = true;
  /// The endpoint refused server compaction (the call went on without it).
  bool compaction_refused = false;
};

/// Talks to the endpoint of one provider_choice.
class model_client {
public:
  /// `cancel` (optional) aborts a running call or wait when it turns true.
  model_client(provider_choice choice, client_options options,
                std::shared_ptr<const std::atomic<bool>> cancel = nullptr);
  ~model_client();

  model_client(const model_client&) = delete;
  model_client& operator=(const model_client&) = delete;

  /// Runs one chat completion with retries. Never throws: failures come
  /// back as finish_reason "error" with `error` written for the user (no
  /// key, no Authorization header). `req.model` "" = the choice's model.
  /// After a stream timed out with text already delivered, later attempts
  /// run without deltas: the reply always carries the complete text.
  /// <think> blocks and <tool_call> text from local models are cleaned up
  /// (see text_quirks.hpp), in deltas too. `info` (optional) receives how
  /// the call ended.
  model_reply chat(const model_request& req, const callbacks& cb,
                   call_info* info = nullptr);

  const provider_choice& choice() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb
