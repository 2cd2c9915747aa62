// The Telegram Bot API over HTTPS: one method call, 429 handling, file
// download. Blocking: used from the poll thread and the detached sender.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/stop_flag.hpp"

namespace nb::telegram {

/// One Bot API answer: {"ok":true,"result":...} or an error.
struct api_result {
  bool ok = false;
  nlohmann::json result;
  int error_code = 0;      ///< Telegram's code (or the HTTP status)
  std::string description; ///< Telegram's or the transport's words
  double retry_after_s = 0;
};

class bot_api {
public:
  bot_api(const std::string& api_base, const std::string& token);

  /// POST /bot<token>/<method> with `params` as JSON. A 429 with
  /// retry_after up to 20 s is waited out (`stop` ends the wait) and tried
  /// again, up to `attempts` times in all.
  api_result call(const std::string& method, const nlohmann::json& params,
                  std::chrono::seconds timeout = std::chrono::seconds(30),
                  int attempts = 3, chan::stop_flag* stop = nullptr);

  /// Downloads a file_path given by getFile into `dest`; "" or the error.
  std::string download(const std::string& file_path, const std::string& dest);

  /// Aborts a call in progress (another thread).
  void abort() { http_.abort(); }

private:
  chan::http_endpoint http_;
  std::string token_;
};

} // namespace nb::telegram
