// A scripted Telegram Bot API server on 127.0.0.1 speaking the real wire
// protocol (JSON shapes of core.telegram.org/bots/api): getMe, getUpdates
// long polling with offset confirmation, sendMessage, editMessageText,
// getFile and file downloads, plus switches for outages, 429s and garbage.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

class fake_telegram {
public:
  static constexpr int64_t bot_id = 999000;
  static constexpr const char* bot_username = "nano_bot";

  explicit fake_telegram(std::string token = "123:ABC");
  ~fake_telegram();

  /// "http://127.0.0.1:<port>": the apiBase.
  std::string base_url() const;

  /// Queues an update (its update_id is assigned); returns the id.
  int64_t push_update(nlohmann::json update_without_id);
  /// A private text message from user `from`.
  int64_t push_text(int64_t chat, int64_t from, const std::string& text);
  /// A supergroup message; `mention` adds a mention entity for the bot;
  /// `topic` > 0 makes it a forum topic message.
  int64_t push_group(int64_t chat, int64_t from, const std::string& text,
                     bool mention, int64_t topic = 0);
  /// A private photo with a caption; the file's bytes are `bytes`.
  int64_t push_photo(int64_t chat, int64_t from, const std::string& caption,
                     const std::string& bytes);

  /// Closes the server (open connections end): the platform is gone.
  void go_down();
  /// Listens again on the same port.
  void come_up();
  /// The next `n` getUpdates calls fail: "502" (an HTML error page), "429" (retry_after 1) or "garbage"
  /// (200 with a body that is not JSON).
  void fail_polls(int n, const std::string& how);
  /// The next `n` sendMessage calls get 429 with `retry_after` seconds.
  void limit_sends(int n, int retry_after);
  /// The next sendMessage with parse_mode HTML is refused (bad entities).
  void refuse_html_once();

  /// Every sendMessage / editMessageText that was accepted, in order
  /// (the request's JSON plus "method" and the assigned "message_id").
  std::vector<nlohmann::json> sent() const;
  /// Waits until at least `n` were accepted (false on timeout).
  bool wait_sent(size_t n, std::chrono::milliseconds timeout) const;
  /// Calls of a method so far (accepted or not).
  int calls(const std::string& method) const;
  /// Telegram lost the confirmations (the bot crashed before its offset
  /// reached the server): every update pushed so far is delivered again.
  void forget_confirmations();
  /// Updates not yet confirmed by an offset.
  size_t pending() const;
  /// The offset of the most recent getUpdates.
  int64_t last_offset() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test
