#include "actors/channels/dingtalk/dingtalk_api.hpp"

#include <algorithm>
#include <thread>

#include "actors/channels/kit/media_out.hpp"
#include "actors/common/clock.hpp"

namespace nb::dingtalk {

using nlohmann::json;

std::string describe(const chan::http_reply& r) {
  if (r.status == 0)
    return r.error.empty() ? "no answer" : r.error;
  std::string out = "HTTP " + std::to_string(r.status);
  if (r.json.is_object()) {
    auto code = r.json.value("code", json{});
    auto msg = r.json.value("message", json{});
    if (code.is_string())
      out += " " + code.get<std::string>();
    if (msg.is_string())
      out += ": " + msg.get<std::string>();
    auto errcode = r.json.value("errcode", json{});
    if (errcode.is_number_integer() && errcode.get<int64_t>() != 0)
      out += " errcode " + std::to_string(errcode.get<int64_t>()) + ": "
             + r.json.value("errmsg", std::string{});
  }
  return out;
}

bool throttled(const chan::http_reply& r) {
  if (r.status == 429)
    return true;
  if (!r.json.is_object())
    return false;
  auto code = r.json.value("code", json{});
  if (!code.is_string())
    return false;
  auto c = code.get<std::string>();
  return c.find("Throttling") != std::string::npos
         || c.find("QpsLimit") != std::string::npos
         || c.find("FlowControl") != std::string::npos;
}

std::string legacy_base(const std::string& api_base) {
  auto base = api_base;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  return base == "https://api.dingtalk.com" ? "https://oapi.dingtalk.com"
                                            : api_base;
}

openapi::openapi(const dingtalk_config& cfg)
    : cfg_(cfg), http_(cfg.api_base), legacy_(legacy_base(cfg.api_base)) {}

bool openapi::wait_out(const chan::http_reply& r, chan::stop_flag* stop) {
  double s = r.retry_after_s > 0 ? r.retry_after_s : 1.0;
  if (s > 20)
    return false;
  auto wait = std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
  if (stop)
    return stop->sleep_for(wait);
  std::this_thread::sleep_for(wait);
  return true;
}

std::string openapi::token(std::string& error) {
  if (!token_.empty() && steady_ms() < expires_ms_)
    return token_;
  json body{{"appKey", cfg_.client_id}, {"appSecret", cfg_.client_secret}};
  auto r = http_.call("POST", "/v1.0/oauth2/accessToken", body.dump(),
                      {{"Accept", "application/json"}},
                      std::chrono::seconds(15));
  auto tok = r.ok() && r.json.is_object() ? r.json.value("accessToken", json{})
                                          : json{};
  if (!tok.is_string() || tok.get<std::string>().empty()) {
    error = "accessToken: " + describe(r);
    return "";
  }
  token_ = tok.get<std::string>();
  auto in = r.json.value("expireIn", json{});
  int64_t secs = in.is_number_integer() ? in.get<int64_t>() : 7200;
  expires_ms_ = steady_ms() + std::max<int64_t>(secs - 300, 60) * 1000;
  return token_;
}

chan::http_reply openapi::call(const std::string& path, const json& body,
                               chan::stop_flag* stop) {
  bool renewed = false;
  for (int waits = 0;;) {
    chan::http_reply r;
    auto tok = token(r.error);
    if (tok.empty())
      return r;
    r = http_.call("POST", path, body.dump(),
                   {{"x-acs-dingtalk-access-token", tok},
                    {"Accept", "application/json"}},
                   std::chrono::seconds(30));
    if (r.status == 401 && !renewed) {
      renewed = true;
      forget_token();
      continue;
    }
    if (throttled(r) && waits < 2 && wait_out(r, stop)) {
      ++waits;
      continue;
    }
    return r;
  }
}

std::string openapi::upload(const std::string& type,
                            const std::string& file_name,
                            const std::string& mime, const std::string& bytes,
                            std::string& media_id) {
  chan::multipart_form form;
  form.file("media", file_name, mime, bytes);
  bool renewed = false;
  for (int waits = 0;;) {
    std::string error;
    auto tok = token(error);
    if (tok.empty())
      return error;
    auto r = legacy_.call("POST",
                          "/media/upload?access_token=" + chan::url_encode(tok)
                            + "&type=" + type,
                          form.body(), {{"Accept", "application/json"}},
                          std::chrono::seconds(120), form.content_type());
    // The older API answers 200 with errcode: 40014/42001 for a bad or
    // expired token, 90018/90002 when called too often.
    auto errcode =
      r.json.is_object() ? r.json.value("errcode", json{}) : json{};
    int64_t code = errcode.is_number_integer() ? errcode.get<int64_t>() : 0;
    if ((r.status == 401 || code == 40014 || code == 42001) && !renewed) {
      renewed = true;
      forget_token();
      continue;
    }
    if ((throttled(r) || code == 90018 || code == 90002) && waits < 2
        && wait_out(r, nullptr)) {
      ++waits;
      continue;
    }
    auto id = r.json.is_object() ? r.json.value("media_id", json{}) : json{};
    if (r.ok() && code == 0 && id.is_string()
        && !id.get<std::string>().empty()) {
      media_id = id.get<std::string>();
      return "";
    }
    return "media upload: " + describe(r);
  }
}

std::string openapi::download(const std::string& download_code,
                              const std::string& dest, int64_t max_bytes) {
  auto r = call("/v1.0/robot/messageFiles/download",
                json{{"downloadCode", download_code},
                     {"robotCode", cfg_.client_id}});
  auto url = r.ok() && r.json.is_object() ? r.json.value("downloadUrl", json{})
                                          : json{};
  if (!url.is_string())
    return "messageFiles/download: " + describe(r);
  return chan::download_file(url.get<std::string>(), dest, max_bytes);
}

} // namespace nb::dingtalk
