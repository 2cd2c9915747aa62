// A scripted Feishu: the Open API (tenant_access_token, bot/v3/info, im/v1
// messages, replies, reactions, message resources, CardKit streaming
// cards, with rate limits and expired tokens on demand) and the WebSocket long connection
// (/callback/ws/endpoint, binary pbbp2 frames: events re-sent until
// acknowledged, fragmented payloads, pongs carrying ClientConfig).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

class fake_feishu {
public:
  static constexpr const char* app_id = "cli_a1b2c3";
  static constexpr const char* app_secret = "s3cret-feishu";
  static constexpr const char* bot_open_id = "ou_bot";

  fake_feishu();
  ~fake_feishu();

  /// "http://127.0.0.1:<port>": the apiBase.
  std::string api_base() const;
  /// channels.feishu for an adapter talking to this server: enabled, the
  /// app's credentials, apiBase, no reaction on receipt.
  nlohmann::json adapter_config() const;

  /// An im.message.receive_v1 event of a text message. `mention_bot` adds
  /// an @_user_1 mention of the bot in front of the text.
  static nlohmann::json text_event(const std::string& chat_id,
                                   const std::string& chat_type,
                                   const std::string& sender,
                                   const std::string& text,
                                   bool mention_bot = false,
                                   const std::string& root_id = "");
  /// The message_id inside an event built above.
  static std::string message_id_of(const nlohmann::json& event);

  /// Queues a data frame carrying `event`, split into `parts` frames;
  /// returns the frame's message_id header (not the chat message's id).
  std::string push_event(const nlohmann::json& event, int parts = 1);
  /// Queues a data frame whose payload is `payload` as is.
  std::string push_payload(const std::string& payload);
  /// Queues bytes sent as one binary WebSocket frame, as they are.
  void push_raw(const std::string& bytes);

  void drop();
  /// Acks are recorded but do not settle: events come again next time.
  void ignore_acks(bool on);
  /// The next `n` message sends answer a rate limit: HTTP 429 with
  /// x-ogw-ratelimit-reset, or (by_code) HTTP 400 with code 230020.
  void limit_sends(int n, int reset_s, bool by_code = false);
  /// The current tenant token stops working (code 99991663).
  void expire_token();
  /// Serves `bytes` as the resource `key` of any message.
  void add_resource(const std::string& key, const std::string& bytes);
  /// PingInterval handed out in ClientConfig (seconds).
  void set_ping_interval(int seconds);

  int connections() const;
  bool wait_connections(int n, std::chrono::milliseconds t) const;
  /// Frame message_ids acknowledged with code 200 and a biz_rt header.
  std::vector<std::string> acked() const;
  bool wait_acked(size_t n, std::chrono::milliseconds t) const;
  /// Codes of every acknowledgement, in order.
  std::vector<int> ack_codes() const;
  int pings() const;
  bool wait_pings(int n, std::chrono::milliseconds t) const;
  /// Accepted sends: {"path", "receive_id_type", "body"} (replies too).
  std::vector<nlohmann::json> sent() const;
  bool wait_sent(size_t n, std::chrono::milliseconds t) const;
  int send_calls() const;
  /// Accepted uploads (im/v1/images and im/v1/files): {"path", "fields"
  /// (the form's text fields), "file_name", "bytes" (the file's size),
  /// "key" (the image_key or file_key answered)}.
  std::vector<nlohmann::json> uploads() const;
  /// Message ids that got a reaction, with its emoji type.
  std::vector<nlohmann::json> reactions() const;
  bool wait_reactions(size_t n, std::chrono::milliseconds t) const;
  int token_fetches() const;

  /// CardKit cards made so far, in order: {"card_id", "card" (the card
  /// JSON it was created from), "text" (its streaming_md element's text
  /// now), "streaming" (streaming_mode now), "sequence" (the last one
  /// accepted), "updates" (text updates accepted), "refused" (operations
  /// refused)}.
  std::vector<nlohmann::json> cards() const;
  /// Feishu turns the card's streaming mode off (as it does after a
  /// while): text updates are refused until settings turn it on again.
  void close_streaming(const std::string& card_id);
  /// Card creation is refused (an app without the CardKit permission).
  void refuse_cards(bool on);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test
