#include "actors/channels/telegram/bot_api.hpp"

#include <fstream>
#include <thread>

namespace nb::telegram {

bot_api::bot_api(const std::string& api_base, const std::string& token)
  : http_(api_base), token_(token) {
}

namespace {

api_result parse_answer(const chan::http_reply& r) {
  api_result out;
  if (r.status == 0) {
    out.description = r.error;
    return out;
  }
  out.error_code = r.status;
  if (!r.json.is_object() || !r.json.contains("ok")) {
    out.description = "HTTP " + std::to_string(r.status)
                      + ": not a Bot API answer";
    return out;
  }
  out.ok = r.json.value("ok", false) == true;
  if (out.ok) {
    out.error_code = 0;
    out.result = r.json.contains("result") ? r.json["result"]
                                           : nlohmann::json{};
    return out;
  }
  if (r.json.contains("error_code") && r.json["error_code"].is_number())
    out.error_code = r.json["error_code"].get<int>();
  if (r.json.contains("description") && r.json["description"].is_string())
    out.description = r.json["description"].get<std::string>();
  auto p = r.json.value("parameters", nlohmann::json::object());
  if (p.is_object() && p.contains("retry_after") && p["retry_after"].is_number())
    out.retry_after_s = p["retry_after"].get<double>();
  else if (r.retry_after_s > 0)
    out.retry_after_s = r.retry_after_s;
  return out;
}

} // namespace

api_result bot_api::call(const std::string& method,
                         const nlohmann::json& params,
                         std::chrono::seconds timeout, int attempts,
                         chan::stop_flag* stop) {
  api_result out;
  for (int i = 0; i < attempts; ++i) {
    auto r = http_.call("POST", "/bot" + token_ + "/" + method, params.dump(),
                        {}, timeout);
    out = parse_answer(r);
    if (out.ok || out.error_code != 429 || out.retry_after_s > 20
        || i + 1 == attempts)
      return out;
    auto wait = std::chrono::milliseconds(
      static_cast<int64_t>(std::max(out.retry_after_s, 0.05) * 1000));
    if (stop) {
      if (!stop->sleep_for(wait))
        return out;
    } else {
      std::this_thread::sleep_for(wait);
    }
  }
  return out;
}

std::string bot_api::download(const std::string& file_path,
                              const std::string& dest) {
  auto r = http_.call("GET", "/file/bot" + token_ + "/" + file_path, "", {},
                      std::chrono::seconds(60));
  if (!r.ok())
    return r.status ? "HTTP " + std::to_string(r.status) : r.error;
  std::ofstream f{dest, std::ios::binary};
  f.write(r.body.data(), static_cast<std::streamsize>(r.body.size()));
  if (!f)
    return "cannot write " + dest;
  return "";
}

} // namespace nb::telegram
