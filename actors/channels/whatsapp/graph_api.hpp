// The WhatsApp Business Cloud API calls (Graph API): send a message, upload
// an attachment, fetch a received one. Blocking: used from the sender (a
// detached actor) and the webhook's own threads.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/whatsapp/whatsapp_config.hpp"

namespace nb::whatsapp {

class graph_api {
public:
  explicit graph_api(whatsapp_config cfg);

  /// POST {apiBase}/{phoneNumberId}/messages with `body` (the
  /// messaging_product is added). "" once accepted, else why not; a 429 or
  /// a rate-limit code is waited out (Retry-After up to 20 s, else 1 s)
  /// and tried again, twice at most.
  std::string send(nlohmann::json body);

  /// POST {apiBase}/{phoneNumberId}/media (multipart): the media id, or ""
  /// with `error` set.
  std::string upload(const std::string& path, std::string& error);

  /// GET {apiBase}/{mediaId} for its URL, then the bytes (both with the
  /// bearer), saved under media_dir within maxMediaBytes: the path, or ""
  /// with `error` set.
  std::string download(const std::string& media_id, const std::string& mime,
                       const std::string& file_name, std::string& error);

private:
  std::map<std::string, std::string> bearer() const;
  whatsapp_config cfg_;
  chan::http_endpoint http_;
};

/// "HTTP 400 (131047) ..." from a failed Graph answer.
std::string graph_failure(const chan::http_reply& r);

} // namespace nb::whatsapp
