#include "tests/platforms/fake_feishu_impl.hpp"

namespace nb::test {

fake_feishu::fake_feishu() : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  d->socket = std::make_unique<ws_listener>(
    [d](chan::ws_connection& c) { d->serve(c); });
  d->routes();
  d->card_routes();
  d->rest_port = d->rest.bind_to_any_port("127.0.0.1");
  d->rest_thread = std::thread{[d] { d->rest.listen_after_bind(); }};
  while (!d->rest.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

fake_feishu::~fake_feishu() {
  impl_->closing = true;
  impl_->rest.stop();
  impl_->rest_thread.join();
  impl_->socket.reset();
}

std::string fake_feishu::api_base() const {
  return "http://127.0.0.1:" + std::to_string(impl_->rest_port);
}

json fake_feishu::adapter_config() const {
  return json{{"enabled", true},
              {"appId", app_id},
              {"appSecret", app_secret},
              {"apiBase", api_base()},
              {"reactEmoji", ""}};
}

json fake_feishu::text_event(const std::string& chat_id,
                             const std::string& chat_type,
                             const std::string& sender,
                             const std::string& text, bool mention_bot,
                             const std::string& root_id) {
  static std::atomic<int> n{100};
  auto mid = "om_" + std::to_string(++n);
  json mentions = json::array();
  auto body = text;
  if (mention_bot) {
    body = "@_user_1 " + text;
    mentions.push_back({{"key", "@_user_1"},
                        {"id", {{"open_id", bot_open_id},
                                {"union_id", "on_bot"}, {"user_id", ""}}},
                        {"name", "nano"},
                        {"tenant_key", "tk1"}});
  }
  json message{{"message_id", mid},
               {"root_id", root_id},
               {"parent_id", root_id},
               {"create_time", "1700000000000"},
               {"update_time", "1700000000000"},
               {"chat_id", chat_id},
               {"chat_type", chat_type},
               {"message_type", "text"},
               {"content", json{{"text", body}}.dump()},
               {"mentions", mentions},
               {"user_agent", "Mozilla/5.0"}};
  return json{{"schema", "2.0"},
              {"header", {{"event_id", "ev_" + mid},
                          {"event_type", "im.message.receive_v1"},
                          {"create_time", "1700000000000"},
                          {"token", "vtoken"},
                          {"app_id", app_id},
                          {"tenant_key", "tk1"}}},
              {"event", {{"sender", {{"sender_id", {{"union_id", "on_" + sender},
                                                    {"user_id", "u_" + sender},
                                                    {"open_id", sender}}},
                                     {"sender_type", "user"},
                                     {"tenant_key", "tk1"}}},
                         {"message", message}}}};
}

std::string fake_feishu::message_id_of(const json& event) {
  return event["event"]["message"]["message_id"].get<std::string>();
}

std::string fake_feishu::push_event(const json& event, int parts) {
  auto text = event.dump();
  std::vector<std::string> pieces;
  auto size = (text.size() + parts - 1) / parts;
  for (int i = 0; i < parts; ++i)
    pieces.push_back(text.substr(std::min(text.size(), i * size), size));
  return impl_->queue(std::move(pieces));
}

std::string fake_feishu::push_payload(const std::string& payload) {
  return impl_->queue({payload});
}

void fake_feishu::push_raw(const std::string& bytes) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->raw.push_back(bytes);
}

void fake_feishu::drop() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->drop_now = true;
}

void fake_feishu::ignore_acks(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->ignore_acks = on;
}

void fake_feishu::limit_sends(int n, int reset_s, bool by_code) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->limited = n;
  impl_->reset_s = reset_s;
  impl_->limit_by_code = by_code;
}

void fake_feishu::expire_token() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->token = "expired";
}

void fake_feishu::add_resource(const std::string& key,
                               const std::string& bytes) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->resources[key] = bytes;
}

void fake_feishu::set_ping_interval(int seconds) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->ping_s = seconds;
}

int fake_feishu::connections() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->connections;
}

bool fake_feishu::wait_connections(int n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->connections >= n; });
}

std::vector<std::string> fake_feishu::acked() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->acked;
}

bool fake_feishu::wait_acked(size_t n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->acked.size() >= n; });
}

std::vector<int> fake_feishu::ack_codes() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->ack_codes;
}

int fake_feishu::pings() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->pings;
}

bool fake_feishu::wait_pings(int n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->pings >= n; });
}

std::vector<json> fake_feishu::sent() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->sent;
}

std::vector<json> fake_feishu::uploads() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->uploads;
}

bool fake_feishu::wait_sent(size_t n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->sent.size() >= n; });
}

int fake_feishu::send_calls() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->send_calls;
}

std::vector<json> fake_feishu::reactions() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->reactions;
}

bool fake_feishu::wait_reactions(size_t n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->reactions.size() >= n; });
}

int fake_feishu::token_fetches() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->token_fetches;
}

} // namespace nb::test
