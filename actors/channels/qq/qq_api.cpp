#include "actors/channels/qq/qq_api.hpp"

#include <nlohmann/json.hpp>

#include "actors/common/base64.hpp"

namespace nb::qq {

namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;

std::string failure(const chan::http_reply& r) {
  if (r.status == 0)
    return r.error;
  std::string out = "HTTP " + std::to_string(r.status);
  if (r.json.is_object()) {
    if (r.json.contains("code"))
      out += " code " + r.json["code"].dump();
    if (r.json.contains("message") && r.json["message"].is_string())
      out += ": " + r.json["message"].get<std::string>();
    return out;
  }
  return out + " " + r.body.substr(0, 200);
}

} // namespace

qq_api::qq_api(const qq_config& cfg)
  : cfg_(cfg), tokens_(cfg.token_base), api_(cfg.api_base) {
}

std::string qq_api::authorization(std::string& error, bool& refused) {
  if (!token_.empty() && steady::now() + std::chrono::minutes(1) < expires_)
    return "QQBot " + token_;
  json body{{"appId", cfg_.app_id}, {"clientSecret", cfg_.secret}};
  auto r = tokens_.call("POST", "/app/getAppAccessToken", body.dump(), {},
                        std::chrono::seconds(15));
  const json& j = r.json;
  if (r.ok() && j.is_object() && j.value("access_token", json{}).is_string()
      && !j["access_token"].get<std::string>().empty()) {
    token_ = j["access_token"].get<std::string>();
    // expires_in comes as a string ("7200"); a number is taken too.
    int64_t secs = 7200;
    auto e = j.value("expires_in", json{});
    if (e.is_number_integer())
      secs = e.get<int64_t>();
    else if (e.is_string() && !e.get<std::string>().empty()
             && e.get<std::string>().find_first_not_of("0123456789")
                  == std::string::npos
             && e.get<std::string>().size() < 10)
      secs = std::stoll(e.get<std::string>());
    expires_ = steady::now() + std::chrono::seconds(secs);
    return "QQBot " + token_;
  }
  token_.clear();
  // A wrong appId/secret is an answer with a code and no token.
  refused = r.status == 401 || r.status == 403
            || (r.status >= 200 && r.status < 500 && j.is_object()
                && j.contains("code"));
  error = "getAppAccessToken: " + failure(r);
  if (refused)
    error = "channels." + cfg_.name + ".secret: QQ refused appId/secret ("
            + error + ")";
  return "";
}

std::string qq_api::gateway_url(std::string& error, bool& refused) {
  auto auth = authorization(error, refused);
  if (auth.empty())
    return "";
  auto r = api_.call("GET", "/gateway", "",
                     {{"Authorization", auth}, {"X-Union-Appid", cfg_.app_id}},
                     std::chrono::seconds(15));
  if (r.ok() && r.json.is_object() && r.json.value("url", json{}).is_string())
    return r.json["url"].get<std::string>();
  if (r.status == 401)
    token_.clear(); // perhaps revoked: the next attempt fetches a new one
  error = "GET /gateway: " + failure(r);
  return "";
}

std::string qq_api::post(const qq_post& p) {
  std::string error;
  bool refused = false;
  auto auth = authorization(error, refused);
  if (auth.empty())
    return error;
  json body{{"msg_seq", p.msg_seq}};
  if (!p.msg_id.empty())
    body["msg_id"] = p.msg_id;
  if (!p.file_info.empty()) {
    body["msg_type"] = 7;
    body["media"] = {{"file_info", p.file_info}};
  } else if (cfg_.markdown) {
    body["msg_type"] = 2;
    body["markdown"] = {{"content", p.text}};
  } else {
    body["msg_type"] = 0;
    body["content"] = p.text;
  }
  auto path = (p.group ? "/v2/groups/" : "/v2/users/")
              + chan::url_encode(p.target) + "/messages";
  auto r = chan::call_waiting_out_429(
    api_, "POST", path, body.dump(),
    {{"Authorization", auth}, {"X-Union-Appid", cfg_.app_id}});
  if (r.ok())
    return "";
  if (r.status == 401)
    token_.clear();
  return failure(r);
}

} // namespace nb::qq

namespace nb::qq {

std::string qq_api::upload(bool group, const std::string& target, int file_type,
                           const std::string& file_name,
                           const std::string& bytes, std::string& file_info) {
  std::string error;
  bool refused = false;
  auto auth = authorization(error, refused);
  if (auth.empty())
    return error;
  json body{{"file_type", file_type},
            {"file_data", base64_encode(bytes)},
            {"srv_send_msg", false}};
  // A picture with a name shows as a file attachment, not inline.
  if (file_type != 1)
    body["file_name"] = file_name;
  auto path = (group ? "/v2/groups/" : "/v2/users/") + chan::url_encode(target)
              + "/files";
  auto r = chan::call_waiting_out_429(
    api_, "POST", path, body.dump(),
    {{"Authorization", auth}, {"X-Union-Appid", cfg_.app_id}});
  auto info = r.json.is_object() ? r.json.value("file_info", json{}) : json{};
  if (r.ok() && info.is_string() && !info.get<std::string>().empty()) {
    file_info = info.get<std::string>();
    return "";
  }
  if (r.status == 401)
    token_.clear();
  return "upload: " + failure(r);
}

} // namespace nb::qq
