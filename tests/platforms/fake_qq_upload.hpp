// The scripted QQ's rich media upload: POST /v2/users/{openid}/files and
// /v2/groups/{group_openid}/files with file_type, file_data (base64) and
// srv_send_msg, answered with file_uuid, file_info and ttl as QQ does.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace nb::test {

class fake_qq_uploads {
public:
  using auth_check =
    std::function<bool(const httplib::Request&, httplib::Response&)>;

  /// Adds both routes to `rest`; `authed` checks (and answers) the token.
  void install(httplib::Server& rest, auth_check authed);

  /// Accepted uploads: {"kind": "users"|"groups", "target", "file_type",
  /// "file_name" (null when absent), "srv_send_msg", "base64_chars",
  /// "bytes" (decoded), "file_info"} in order.
  std::vector<nlohmann::json> all() const;

private:
  void take(const httplib::Request& req, httplib::Response& res,
            const char* kind);

  mutable std::mutex mx_;
  std::vector<nlohmann::json> uploads_;
  auth_check authed_;
};

} // namespace nb::test
