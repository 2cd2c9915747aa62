// Feishu's Open API as the adapter uses it: the tenant access token
// (cached, refreshed before it expires), JSON calls with rate-limit
// answers waited out, binary downloads. One instance per thread.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/channels/feishu/feishu_config.hpp"
#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/media_out.hpp"
#include "actors/channels/kit/stop_flag.hpp"

namespace nb::feishu {

/// When a tenant token has to be fetched again.
struct token_cache {
  std::string token;
  int64_t refresh_at_ms = 0;

  bool fresh(int64_t now_ms) const {
    return !token.empty() && now_ms < refresh_at_ms;
  }
  /// Keeps `t` until 5 minutes before its `expire_s` run out (half its
  /// life when that is shorter), so a call never carries a dying token.
  void store(std::string t, int64_t expire_s, int64_t now_ms);
  void drop() { token.clear(); }
};

/// What one Open API call gave back.
struct api_result {
  int status = 0;       ///< HTTP status; 0 = no answer
  int64_t code = -1;    ///< Feishu's "code" (0 = success)
  std::string msg;      ///< Feishu's "msg", or the transport error
  nlohmann::json body;  ///< the whole JSON answer
  bool ok() const { return status == 200 && code == 0; }
  /// "HTTP 400 code 230002: Bot is not in the chat", for logs and errors.
  std::string describe() const;
};

/// Whether an answer says "too many requests" (HTTP 429, or the message
/// and reaction APIs' frequency-limit codes).
bool rate_limited(const api_result& r);

class open_api {
public:
  /// `stop` (may be null) cuts waits short.
  open_api(const feishu_config& cfg, chan::stop_flag* stop = nullptr);

  /// A call with the tenant token. `body` null: no body. A rate-limit
  /// answer is waited out (its x-ogw-ratelimit-reset or Retry-After, up to
  /// 20 s) twice at most; a token Feishu calls invalid is fetched anew once.
  api_result call(const std::string& method, const std::string& path,
                  const nlohmann::json& body = nullptr);

  /// A multipart/form-data POST (the image and file uploads) with the
  /// tenant token; rate limits and a stale token handled as for call().
  api_result post_form(const std::string& path,
                       const chan::multipart_form& form);

  /// A call without the token (the long connection's endpoint).
  api_result call_without_token(const std::string& method,
                                const std::string& path,
                                const nlohmann::json& body) {
    return send(method, path, body.is_null() ? "" : body.dump(), json_type, "");
  }

  /// Aborts the HTTP call in progress (from another thread).
  void abort() { http_.abort(); }

  /// GET of a file; "" and the bytes in `out`, or why not (also when it is
  /// larger than `max_bytes`).
  std::string download(const std::string& path, int64_t max_bytes,
                       std::string& out);

  /// The tenant token, cached; "" and `error` when Feishu refused it.
  std::string token(std::string& error);
  /// Feishu refused the app id or secret (no use trying again).
  bool credentials_rejected() const { return rejected_; }

private:
  static constexpr const char* json_type = "application/json; charset=utf-8";
  api_result send(const std::string& method, const std::string& path,
                  const std::string& payload, const std::string& content_type,
                  const std::string& token);
  /// send() with the tenant token, fetched anew once when Feishu calls it
  /// invalid.
  api_result send_with_token(const std::string& method, const std::string& path,
                             const std::string& payload,
                             const std::string& content_type);
  bool wait(double seconds);

  feishu_config cfg_;
  chan::stop_flag* stop_;
  chan::http_endpoint http_;
  token_cache cache_;
  bool rejected_ = false;
};

} // namespace nb::feishu
