// QQ's bot OpenAPI: the app access token (cached, renewed before it
// expires) and the passive-reply message posts. Blocking: one instance per
// thread (the gateway loop's and the sender's).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/qq/qq_config.hpp"

namespace nb::qq {

/// One outgoing text.
struct qq_post {
  bool group = false;      ///< /v2/groups/{id} (else /v2/users/{id})
  std::string target;      ///< group_openid or the user's openid
  std::string text;
  std::string msg_id;      ///< the message answered ("" = an active message)
  int64_t msg_seq = 1;     ///< distinct per msg_id (QQ drops repeats)
  /// A rich media message (msg_type 7) instead of the text: the uploaded
  /// file's {"file_info": ...}.
  std::string file_info;
};

class qq_api {
public:
  explicit qq_api(const qq_config& cfg);

  /// "QQBot <token>", fetching a new token when none is cached or it ends
  /// within a minute. "" with `error` (and `refused` when QQ turned the
  /// appId/secret down) otherwise.
  std::string authorization(std::string& error, bool& refused);

  /// GET /gateway: the WebSocket URL, or "" with `error`/`refused`.
  std::string gateway_url(std::string& error, bool& refused);

  /// Posts one message (rate limits waited out); "" or why not.
  std::string post(const qq_post& p);

  /// Uploads a file to the chat (POST /v2/users/{openid}/files or
  /// /v2/groups/{group_openid}/files: file_type 1 image, 2 video, 3 voice,
  /// 4 file; file_data in base64; srv_send_msg false). "" and the
  /// `file_info` to send it with, or why not.
  std::string upload(bool group, const std::string& target, int file_type,
                     const std::string& file_name, const std::string& bytes,
                     std::string& file_info);

private:
  const qq_config& cfg_;
  chan::http_endpoint tokens_;
  chan::http_endpoint api_;
  std::string token_;
  std::chrono::steady_clock::time_point expires_{};
};

} // namespace nb::qq
