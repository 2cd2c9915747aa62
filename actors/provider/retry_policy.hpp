// Which failed model calls deserve another attempt, how long to wait, and
// how failures read to a user. Pure functions.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace nb {

/// What went wrong in one HTTP attempt.
enum class failure_kind {
  http_status, ///< the server answered with a non-2xx status
  timeout,     ///< no response / no stream event in time
  connection,  ///< connect failed, connection lost
  protocol,    ///< a 200 that is not a usable completion
  too_large,   ///< the response passed the size bound
  tls,         ///< certificate or handshake failure (never retried)
  cancelled,   ///< shutdown
};

/// One failed attempt.
struct attempt_failure {
  failure_kind kind = failure_kind::connection;
  int status = 0;        ///< HTTP status, 0 = none
  std::string detail;    ///< "HTTP 500: upstream overloaded"
  bool transient = false; ///< worth retrying as far as the error goes
  std::optional<std::chrono::milliseconds> retry_after; ///< server hint
};

/// True when another attempt may follow `f`. Once streamed text reached the
/// user only timeouts are retried (a retry would repeat that text).
bool should_retry(const attempt_failure& f, bool streamed_text_shown);

/// 408, 409, 429 and 5xx are transient, except a 429 that says the quota
/// or billing is exhausted (waiting does not fix that).
bool retryable_status(int status, std::string_view body);

/// True when `text` says quota, balance or billing is exhausted.
bool is_quota_error(std::string_view text);

/// True when an error text reads transient ("overloaded", "rate limit",
/// "timeout", "temporarily unavailable", ...).
bool transient_text(std::string_view text);

/// The wait a server asked for: `retry-after-ms`, else `retry-after` in
/// seconds or as an HTTP date (relative to `now`). Empty strings = absent.
std::optional<std::chrono::milliseconds>
retry_after_hint(std::string_view retry_after, std::string_view retry_after_ms,
                 std::chrono::system_clock::time_point now
                 = std::chrono::system_clock::now());

/// "HTTP 401: Incorrect API key provided" from a status and its body
/// (error.message of a JSON body, else a short preview; HTML is omitted).
std::string http_error_detail(int status, std::string_view body);

/// `text` with every occurrence of `secret` replaced by "***".
std::string redact(std::string text, std::string_view secret);

/// Whole seconds for messages, at least 1: 1500 ms -> "2".
std::string seconds_text(std::chrono::milliseconds d);

} // namespace nb
