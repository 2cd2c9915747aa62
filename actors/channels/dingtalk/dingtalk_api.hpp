// DingTalk's OpenAPI as the adapter uses it: the app access token (cached,
// renewed before it expires), calls that carry it, rate-limit answers
// waited out, and received files fetched through their downloadCode.
// Blocking: one instance per thread (the stream loop, the sender).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/channels/dingtalk/dingtalk_config.hpp"
#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/stop_flag.hpp"

namespace nb::dingtalk {

/// "HTTP 400 InvalidParameter: why" from an OpenAPI error answer (or the
/// transport error).
std::string describe(const chan::http_reply& r);

/// True for the answers that mean "too fast": HTTP 429 and the throttling
/// codes (Throttling*, *QpsLimit*, *FlowControl*).
bool throttled(const chan::http_reply& r);

/// Where the older API (the media upload) lives: oapi.dingtalk.com for
/// the default apiBase; any other apiBase (a proxy, a test) serves both.
std::string legacy_base(const std::string& api_base);

class openapi {
public:
  explicit openapi(const dingtalk_config& cfg);

  /// The app access token (POST /v1.0/oauth2/accessToken with appKey and
  /// appSecret), fetched again 5 minutes before it expires. "" with
  /// `error` set when DingTalk refused.
  std::string token(std::string& error);
  /// Forgets the cached token (DingTalk said it is no longer valid).
  void forget_token() { expires_ms_ = 0; }

  /// POSTs `body` to `path` with x-acs-dingtalk-access-token. A 401 gets a
  /// fresh token once; a throttling answer is waited out (its Retry-After,
  /// else 1 s, at most 20 s) up to twice. `stop` (optional) cuts waits.
  chan::http_reply call(const std::string& path, const nlohmann::json& body,
                        chan::stop_flag* stop = nullptr);

  /// Saves the file behind `download_code` (POST
  /// /v1.0/robot/messageFiles/download gives its URL) as `dest`, at most
  /// `max_bytes`. "" or why not.
  std::string download(const std::string& download_code,
                       const std::string& dest, int64_t max_bytes);

  /// Uploads a file through the media upload API (POST /media/upload on
  /// oapi.dingtalk.com, multipart field "media", type image | voice |
  /// video | file). "" and `media_id`, or why not. The token travels in
  /// the query: the URL is never logged.
  std::string upload(const std::string& type, const std::string& file_name,
                     const std::string& mime, const std::string& bytes,
                     std::string& media_id);

  /// Waits out a throttling answer; false when it is too long or stop
  /// was requested.
  static bool wait_out(const chan::http_reply& r, chan::stop_flag* stop);

private:
  dingtalk_config cfg_;
  chan::http_endpoint http_;
  chan::http_endpoint legacy_; ///< oapi.dingtalk.com (the media upload)
  std::string token_;
  int64_t expires_ms_ = 0; ///< steady clock
};

} // namespace nb::dingtalk
