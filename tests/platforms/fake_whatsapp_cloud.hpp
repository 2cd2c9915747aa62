// A scripted WhatsApp Business Cloud API: the Graph API endpoints the
// adapter calls (/{phone-number-id}/messages, /{phone-number-id}/media,
// /{media-id} and the media URL it names), with Meta's JSON shapes and
// errors (401 OAuthException, 429, 131047), and Meta's side of the webhook:
// signed POSTs of the documented payloads and the GET subscription check.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

class fake_whatsapp_cloud {
public:
  static constexpr const char* access_token = "EAAG-test-token";
  static constexpr const char* phone_number_id = "1098765";
  static constexpr const char* app_secret = "app-secret-1";
  static constexpr const char* verify_token = "verify-me";

  fake_whatsapp_cloud();
  ~fake_whatsapp_cloud();

  /// "http://127.0.0.1:<port>/v21.0": the apiBase.
  std::string api_base() const;

  /// A webhook body carrying one text message from `from`.
  static nlohmann::json text_message(const std::string& from,
                                     const std::string& id,
                                     const std::string& text);
  /// One image message (media id `media_id`) with a caption.
  static nlohmann::json image_message(const std::string& from,
                                      const std::string& id,
                                      const std::string& media_id,
                                      const std::string& caption);
  /// One status callback; `error_code` != 0 makes it "failed".
  static nlohmann::json status(const std::string& id,
                               const std::string& state,
                               const std::string& recipient,
                               int error_code = 0);

  /// Meta's POST to `url`, signed with `secret` ("" = no signature
  /// header): the HTTP status (0: no answer).
  static int post_webhook(const std::string& url, const nlohmann::json& body,
                          const std::string& secret = app_secret);
  /// Meta's GET check: the status; `body` gets the answer.
  static int verify(const std::string& url, const std::string& token,
                    const std::string& challenge, std::string& body);

  /// Media that /{media-id} and its URL serve.
  void add_media(const std::string& id, const std::string& bytes,
                 const std::string& mime);
  /// The next `n` sends answer 429 with Retry-After `retry_after_s`.
  void limit_sends(int n, int retry_after_s);
  /// The next `n` sends answer 400 with error 131047.
  void refuse_outside_window(int n);

  /// Accepted /messages bodies.
  std::vector<nlohmann::json> sent() const;
  int send_calls() const;
  /// Uploaded files: "<type>|<file name>|<bytes>".
  std::vector<std::string> uploads() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test
