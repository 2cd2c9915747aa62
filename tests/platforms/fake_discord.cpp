#include "tests/platforms/fake_discord.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <httplib.h>

#include "tests/platforms/ws_listener.hpp"

namespace nb::test {

using nlohmann::json;

struct fake_discord::impl {
  std::string token;
  int heartbeat_ms;
  mutable std::mutex mx;
  mutable std::condition_variable cv;
  std::vector<std::pair<int64_t, json>> log; ///< every dispatch with its seq
  int64_t seq = 0;
  int64_t sent_upto = 0; ///< highest seq sent on the live connection
  std::deque<std::string> raw;
  std::string session_id;
  bool drop_now = false;
  bool acking = true;
  bool overlap = false;
  int limited = 0;
  double retry_after = 0;
  int identifies = 0, resumes = 0, heartbeats = 0, sessions = 0;
  int64_t heartbeat_seq = 0; ///< the sequence the last heartbeat confirmed
  int64_t intents = -1;
  std::vector<json> posts;
  int post_calls = 0;
  httplib::Server rest;
  std::thread rest_thread;
  int rest_port = 0;
  std::unique_ptr<ws_listener> gateway;
  std::atomic<bool> closing{false};

  void send_dispatches(chan::ws_connection& c, std::unique_lock<std::mutex>& g) {
    std::vector<std::string> out;
    for (auto& [s, ev] : log)
      if (s > sent_upto)
        out.push_back(ev.dump());
    while (!raw.empty()) {
      out.push_back(raw.front());
      raw.pop_front();
    }
    if (!log.empty())
      sent_upto = std::max(sent_upto, log.back().first);
    g.unlock();
    for (auto& text : out)
      c.send(text);
    g.lock();
  }

  void serve(chan::ws_connection& c) {
    c.send(json{{"op", 10}, {"d", {{"heartbeat_interval", heartbeat_ms}}},
                {"s", nullptr}, {"t", nullptr}}
             .dump());
    auto first = c.read(std::chrono::seconds(5));
    auto j = first ? json::parse(*first, nullptr, false) : json{};
    std::unique_lock<std::mutex> g{mx};
    if (!j.is_object() || !j.contains("d") || !j["d"].is_object()
        || j["d"].value("token", "") != token) {
      g.unlock();
      c.close(4004, "Authentication failed.");
      return;
    }
    if (j.value("op", 0) == 2) {
      ++identifies;
      intents = j["d"].value("intents", int64_t{-1});
      session_id = "sess-" + std::to_string(identifies);
      json ready{{"op", 0}, {"t", "READY"}, {"s", ++seq},
                 {"d", {{"v", 10}, {"session_id", session_id},
                        {"resume_gateway_url", gateway->url()},
                        {"user", {{"id", bot_id}, {"username", "nano"},
                                  {"bot", true}}},
                        {"guilds", json::array()}}}};
      sent_upto = seq;
      ++sessions;
      g.unlock();
      c.send(ready.dump());
      g.lock();
    } else if (j.value("op", 0) == 6) {
      ++resumes;
      if (j["d"].value("session_id", "") != session_id) {
        g.unlock();
        c.send(json{{"op", 9}, {"d", false}}.dump());
        c.close(4000);
        return;
      }
      sent_upto = j["d"].value("seq", int64_t{0}) - (overlap ? 1 : 0);
      send_dispatches(c, g);
      ++sessions;
      json resumed{{"op", 0}, {"t", "RESUMED"}, {"s", ++seq}, {"d", nullptr}};
      g.unlock();
      c.send(resumed.dump());
      g.lock();
    }
    cv.notify_all();
    while (!closing.load() && c.is_open()) {
      if (drop_now) {
        drop_now = false;
        c.drop();
        break;
      }
      send_dispatches(c, g);
      g.unlock();
      auto msg = c.read(std::chrono::milliseconds(20));
      g.lock();
      if (!msg)
        continue;
      auto p = json::parse(*msg, nullptr, false);
      if (p.is_object() && p.value("op", 0) == 1) {
        ++heartbeats;
        if (p.contains("d") && p["d"].is_number_integer())
          heartbeat_seq = p["d"].get<int64_t>();
        if (acking) {
          g.unlock();
          c.send(json{{"op", 11}}.dump());
          g.lock();
        }
      }
    }
  }
};

fake_discord::fake_discord(std::string token, int heartbeat_ms)
  : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  d->token = std::move(token);
  d->heartbeat_ms = heartbeat_ms;
  d->gateway = std::make_unique<ws_listener>(
    [d](chan::ws_connection& c) { d->serve(c); });
  auto authed = [d](const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Authorization") == "Bot " + d->token)
      return true;
    res.status = 401;
    res.set_content(R"({"message": "401: Unauthorized", "code": 0})",
                    "application/json");
    return false;
  };
  d->rest.Get("/api/v10/gateway/bot",
              [d, authed](const httplib::Request& req, httplib::Response& res) {
                if (!authed(req, res))
                  return;
                json b{{"url", d->gateway->url()},
                       {"shards", 1},
                       {"session_start_limit",
                        {{"total", 1000}, {"remaining", 999},
                         {"reset_after", 14400000}, {"max_concurrency", 1}}}};
                res.set_content(b.dump(), "application/json");
              });
  d->rest.Post(R"(/api/v10/channels/(\d+)/messages)",
               [d, authed](const httplib::Request& req,
                           httplib::Response& res) {
                 if (!authed(req, res))
                   return;
                 std::lock_guard<std::mutex> g{d->mx};
                 ++d->post_calls;
                 auto body = json::parse(req.body, nullptr, false);
                 if (d->limited > 0) {
                   --d->limited;
                   res.status = 429;
                   res.set_header("Retry-After", "1");
                   res.set_header("X-RateLimit-Scope", "user");
                   res.set_content(json{{"message",
                                         "You are being rate limited."},
                                        {"retry_after", d->retry_after},
                                        {"global", false}}
                                     .dump(),
                                   "application/json");
                   return;
                 }
                 if (!body.is_object() || !body.contains("content")
                     || !body["content"].is_string()
                     || body["content"].get<std::string>().size() > 2000) {
                   res.status = 400;
                   res.set_content(R"({"message": "Invalid Form Body", "code": 50035})",
                                   "application/json");
                   return;
                 }
                 d->posts.push_back(json{{"channel_id", req.matches[1]},
                                         {"content", body["content"]}});
                 d->cv.notify_all();
                 json msg{{"id", std::to_string(900 + d->posts.size())},
                          {"channel_id", req.matches[1]},
                          {"content", body["content"]},
                          {"author", {{"id", bot_id}, {"bot", true}}}};
                 res.set_content(msg.dump(), "application/json");
               });
  d->rest_port = d->rest.bind_to_any_port("127.0.0.1");
  d->rest_thread = std::thread{[d] { d->rest.listen_after_bind(); }};
  while (!d->rest.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

fake_discord::~fake_discord() {
  impl_->closing = true;
  impl_->rest.stop();
  impl_->rest_thread.join();
  impl_->gateway.reset();
}

std::string fake_discord::api_base() const {
  return "http://127.0.0.1:" + std::to_string(impl_->rest_port) + "/api/v10";
}

std::string fake_discord::gateway_url() const {
  return impl_->gateway->url();
}

json fake_discord::message(const std::string& channel,
                           const std::string& author,
                           const std::string& content,
                           const std::string& guild, bool mention_bot) {
  static int next = 5000;
  json d{{"id", std::to_string(++next)},
         {"channel_id", channel},
         {"type", 0},
         {"author", {{"id", author}, {"username", "user" + author},
                     {"discriminator", "0"}, {"global_name", "User"}}},
         {"content", mention_bot ? "<@" + std::string{bot_id} + "> " + content
                                 : content},
         {"timestamp", "2026-11-29T17:00:00.000000+00:00"},
         {"tts", false},
         {"mention_everyone", false},
         {"mentions", json::array()},
         {"attachments", json::array()},
         {"embeds", json::array()}};
  if (mention_bot)
    d["mentions"].push_back({{"id", bot_id}, {"username", "nano"},
                             {"bot", true}});
  if (!guild.empty())
    d["guild_id"] = guild;
  return d;
}

void fake_discord::push(const std::string& type, json d) {
  std::lock_guard<std::mutex> g{impl_->mx};
  auto s = ++impl_->seq;
  impl_->log.emplace_back(s, json{{"op", 0}, {"t", type}, {"s", s}, {"d", d}});
}

void fake_discord::push_raw(const std::string& text) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->raw.push_back(text);
}

void fake_discord::drop() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->drop_now = true;
}

void fake_discord::ack_heartbeats(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->acking = on;
}

void fake_discord::replay_overlap(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->overlap = on;
}

void fake_discord::limit_posts(int n, double secs) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->limited = n;
  impl_->retry_after = secs;
}

int fake_discord::identifies() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->identifies;
}

int fake_discord::resumes() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->resumes;
}

int64_t fake_discord::last_seq() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->seq;
}

int64_t fake_discord::confirmed_seq() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->heartbeat_seq;
}

int fake_discord::heartbeats() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->heartbeats;
}

int fake_discord::sessions() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->sessions;
}

int64_t fake_discord::last_intents() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->intents;
}

bool fake_discord::wait_sessions(int n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->sessions >= n; });
}

std::vector<json> fake_discord::posts() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->posts;
}

int fake_discord::post_calls() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->post_calls;
}

} // namespace nb::test
