// Blocking JSON over HTTP(S) for the platform clients: one endpoint per
// thread (httplib clients are not shared), abortable from another thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/common/strings.hpp"

namespace nb::chan {

/// What one call gave back. `status` 0 = no HTTP answer (`error` says why).
struct http_reply {
  int status = 0;
  std::string error;       ///< transport problem ("connection refused"...)
  std::string body;
  nlohmann::json json;     ///< null unless the body parsed as JSON
  double retry_after_s = 0; ///< from the Retry-After header (0 = none)
  /// The response's headers, names in lower case (a platform's own
  /// rate-limit headers, Content-Disposition).
  std::map<std::string, std::string> headers;
  bool ok() const { return status >= 200 && status < 300; }
};

/// A base URL such as "https://api.telegram.org" or
/// "http://127.0.0.1:8081/prefix"; paths are appended to its path.
class http_endpoint {
public:
  explicit http_endpoint(const std::string& base_url);
  ~http_endpoint();
  http_endpoint(const http_endpoint&) = delete;
  http_endpoint& operator=(const http_endpoint&) = delete;

  /// "" when the base URL is usable, else why not.
  const std::string& problem() const { return problem_; }

  /// `body` empty: no body. Content type JSON unless `content_type` says
  /// otherwise. `timeout` bounds each read (long polls pass their own).
  http_reply call(const std::string& method, const std::string& path,
                  const std::string& body = "",
                  const std::map<std::string, std::string>& headers = {},
                  std::chrono::seconds timeout = std::chrono::seconds(30),
                  const std::string& content_type = "application/json");

  /// Aborts the call in progress (safe from another thread).
  void abort();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
  std::string problem_;
};

/// GETs the absolute http(s) `url` into the file `dest` (written as
/// `dest`.part, renamed once complete), refusing a body over `max_bytes`
/// (by its Content-Length or as it arrives, so it is never held whole).
/// "" or why not; nothing is left behind on failure.
std::string download_file(const std::string& url, const std::string& dest,
                          int64_t max_bytes,
                          std::chrono::seconds timeout
                          = std::chrono::seconds(60));

/// endpoint.call() that waits out rate limits: a 429's wait (the JSON
/// body's "retry_after" or the Retry-After header, in seconds) is slept
/// and the call made again, up to `attempts` calls; a wait over
/// `max_wait_s` is not waited and the 429 comes back. `timeout` bounds each
/// read, as in call().
http_reply call_waiting_out_429(
  http_endpoint& endpoint, const std::string& method, const std::string& path,
  const std::string& body, const std::map<std::string, std::string>& headers,
  double max_wait_s = 20, int attempts = 3,
  std::chrono::seconds timeout = std::chrono::seconds(30));

/// Completes a reply whose status, body and headers (lower-case names) are
/// in: the body read as JSON (null when it is not), the Retry-After
/// header's seconds.
void finish_reply(http_reply& r);

/// How long a 429 asks to wait, in seconds: the JSON body's "retry_after"
/// (Discord, Telegram) or the Retry-After header.
double rate_limit_wait_s(const http_reply& r);

using nb::url_encode; // actors/common/strings.hpp

} // namespace nb::chan
