#include "actors/channels/feishu/feishu_api.hpp"

#include <algorithm>
#include <thread>

#include "actors/common/clock.hpp"

namespace nb::feishu {

namespace {

using nlohmann::json;

constexpr double longest_wait_s = 20;

bool token_invalid(int64_t code) {
  return code == 99991661 || code == 99991663 || code == 99991668;
}

/// Seconds the answer asks us to wait (0: it does not say).
double asked_wait(const chan::http_reply& r) {
  for (const char* h : {"x-ogw-ratelimit-reset", "retry-after"}) {
    auto it = r.headers.find(h);
    if (it == r.headers.end())
      continue;
    try {
      return std::stod(it->second);
    } catch (const std::exception&) {
    }
  }
  return 0;
}

} // namespace

void token_cache::store(std::string t, int64_t expire_s, int64_t now_ms) {
  token = std::move(t);
  auto margin_s = std::min<int64_t>(300, expire_s / 2);
  refresh_at_ms = now_ms + (expire_s - margin_s) * 1000;
}

std::string api_result::describe() const {
  if (status == 0)
    return msg;
  std::string out = "HTTP " + std::to_string(status);
  if (code > 0)
    out += " code " + std::to_string(code);
  if (!msg.empty())
    out += ": " + msg;
  return out;
}

bool rate_limited(const api_result& r) {
  return r.status == 429 || r.code == 11232 || r.code == 230020
         || r.code == 99991400;
}

open_api::open_api(const feishu_config& cfg, chan::stop_flag* stop)
  : cfg_(cfg), stop_(stop), http_(cfg.api_base) {
}

bool open_api::wait(double seconds) {
  auto d = std::chrono::milliseconds(
    static_cast<int64_t>(std::max(seconds, 0.05) * 1000));
  if (stop_ != nullptr)
    return stop_->sleep_for(d);
  std::this_thread::sleep_for(d);
  return true;
}

api_result open_api::send(const std::string& method, const std::string& path,
                          const std::string& payload,
                          const std::string& content_type,
                          const std::string& token) {
  std::map<std::string, std::string> headers;
  if (!token.empty())
    headers["Authorization"] = "Bearer " + token;
  double asked = 0;
  api_result out;
  for (int attempt = 0;; ++attempt) {
    // Uploads (up to 30 MB) get longer than a message.
    auto r = http_.call(
      method, path, payload, headers,
      std::chrono::seconds(content_type == json_type ? 30 : 120), content_type);
    out = api_result{};
    out.status = r.status;
    if (r.status == 0) {
      out.msg = r.error;
      return out;
    }
    out.body = r.json;
    if (r.json.is_object()) {
      out.code = r.json.value("code", int64_t{-1});
      out.msg = r.json.value("msg", "");
    }
    asked = asked_wait(r);
    if (!rate_limited(out) || attempt >= 2 || asked > longest_wait_s)
      return out;
    if (!wait(asked > 0 ? asked : 1.0))
      return out;
  }
}

std::string open_api::token(std::string& error) {
  auto now = unix_ms();
  if (cache_.fresh(now))
    return cache_.token;
  auto r =
    send("POST", "/open-apis/auth/v3/tenant_access_token/internal",
         json{{"app_id", cfg_.app_id}, {"app_secret", cfg_.app_secret}}.dump(),
         json_type, "");
  auto token = r.body.is_object() ? r.body.value("tenant_access_token", "")
                                  : std::string{};
  if (!r.ok() || token.empty()) {
    // Bad credentials get a 4xx or a code; an outage is worth retrying.
    rejected_ = !rate_limited(r)
                && ((r.status >= 400 && r.status < 500)
                    || (r.status == 200 && r.code > 0));
    error = "tenant_access_token: " + r.describe();
    return "";
  }
  cache_.store(token, r.body.value("expire", int64_t{7200}), now);
  return cache_.token;
}

api_result open_api::call(const std::string& method, const std::string& path,
                          const json& body) {
  return send_with_token(method, path, body.is_null() ? "" : body.dump(),
                         json_type);
}

api_result open_api::post_form(const std::string& path,
                               const chan::multipart_form& form) {
  return send_with_token("POST", path, form.body(), form.content_type());
}

api_result open_api::send_with_token(const std::string& method,
                                     const std::string& path,
                                     const std::string& payload,
                                     const std::string& content_type) {
  for (int attempt = 0;; ++attempt) {
    std::string error;
    auto t = token(error);
    if (t.empty()) {
      api_result out;
      out.msg = error;
      return out;
    }
    auto r = send(method, path, payload, content_type, t);
    if (!token_invalid(r.code) || attempt > 0)
      return r;
    cache_.drop();
  }
}

std::string open_api::download(const std::string& path, int64_t max_bytes,
                               std::string& out) {
  std::string error;
  auto t = token(error);
  if (t.empty())
    return error;
  auto r = http_.call("GET", path, "", {{"Authorization", "Bearer " + t}},
                      std::chrono::seconds(60));
  if (!r.ok()) {
    if (r.status == 0)
      return r.error;
    return "HTTP " + std::to_string(r.status)
           + (r.json.is_object() ? " " + r.json.value("msg", "") : "");
  }
  if (static_cast<int64_t>(r.body.size()) > max_bytes)
    return std::to_string(r.body.size()) + " bytes is over maxMediaBytes";
  out = std::move(r.body);
  return "";
}

} // namespace nb::feishu
