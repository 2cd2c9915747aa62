#include "tests/platforms/fake_slack.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include <httplib.h>

#include "tests/platforms/ws_listener.hpp"

namespace nb::test {

using nlohmann::json;

struct fake_slack::impl {
  mutable std::mutex mx;
  mutable std::condition_variable cv;
  struct envelope {
    std::string id;
    json payload;
    int attempts = 0;   ///< sends so far (retry_attempt of the next one)
    bool due = true;    ///< to be sent on this connection
    bool acked = false;
  };
  std::vector<envelope> envelopes;
  std::deque<std::string> raw;
  std::vector<std::string> acked;
  bool drop_now = false, refresh = false, ignore_acks = false;
  int limited = 0, retry_after = 1, connections = 0, post_calls = 0;
  std::vector<json> posts;
  httplib::Server rest;
  std::thread rest_thread;
  int rest_port = 0;
  std::unique_ptr<ws_listener> socket;
  std::atomic<bool> closing{false};

  void serve(chan::ws_connection& c) {
    {
      std::lock_guard<std::mutex> g{mx};
      ++connections;
      for (auto& e : envelopes)
        e.due = !e.acked; // unacknowledged: sent again
    }
    cv.notify_all();
    c.send(json{{"type", "hello"},
                {"num_connections", 1},
                {"debug_info", {{"host", "applink-1"},
                                {"approximate_connection_time", 18060}}},
                {"connection_info", {{"app_id", "A1"}}}}
             .dump());
    std::unique_lock<std::mutex> g{mx};
    while (!closing.load() && c.is_open()) {
      if (drop_now) {
        drop_now = false;
        c.drop();
        break;
      }
      std::vector<std::string> out;
      if (refresh) {
        refresh = false;
        out.push_back(json{{"type", "disconnect"},
                           {"reason", "refresh_requested"},
                           {"debug_info", {{"host", "applink-1"}}}}
                        .dump());
      }
      for (auto& e : envelopes)
        if (!e.acked && e.due) {
          json env{{"envelope_id", e.id},
                   {"type", "events_api"},
                   {"accepts_response_payload", false},
                   {"retry_attempt", e.attempts},
                   {"retry_reason", ""},
                   {"payload", e.payload}};
          ++e.attempts;
          e.due = false;
          out.push_back(env.dump());
        }
      while (!raw.empty()) {
        out.push_back(raw.front());
        raw.pop_front();
      }
      g.unlock();
      for (auto& t : out)
        c.send(t);
      auto msg = c.read(std::chrono::milliseconds(20));
      g.lock();
      if (!msg)
        continue;
      auto j = json::parse(*msg, nullptr, false);
      if (j.is_object() && j.contains("envelope_id")) {
        auto id = j["envelope_id"].get<std::string>();
        acked.push_back(id);
        if (!ignore_acks)
          for (auto& e : envelopes)
            if (e.id == id)
              e.acked = true;
        cv.notify_all();
      }
    }
  }

  static void web(httplib::Response& res, const json& body, int status = 200) {
    res.status = status;
    res.set_content(body.dump(), "application/json; charset=utf-8");
  }
};

fake_slack::fake_slack() : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  d->socket = std::make_unique<ws_listener>(
    [d](chan::ws_connection& c) { d->serve(c); });
  auto bearer = [](const httplib::Request& req, const char* token) {
    return req.get_header_value("Authorization")
           == std::string{"Bearer "} + token;
  };
  d->rest.Post("/api/auth.test", [bearer](const httplib::Request& req,
                                          httplib::Response& res) {
    if (!bearer(req, bot_token))
      return impl::web(res, {{"ok", false}, {"error", "invalid_auth"}});
    impl::web(res, {{"ok", true}, {"url", "https://team.slack.com/"},
                    {"team", "Team"}, {"user", "nano"}, {"team_id", "T1"},
                    {"user_id", bot_user}, {"bot_id", "B1"}});
  });
  d->rest.Post("/api/apps.connections.open",
               [d, bearer](const httplib::Request& req,
                           httplib::Response& res) {
                 if (!bearer(req, app_token))
                   return impl::web(res, {{"ok", false},
                                          {"error", "not_allowed_token_type"}});
                 impl::web(res, {{"ok", true},
                                 {"url", d->socket->url() + "/link/?ticket=t"}});
               });
  d->rest.Post("/api/chat.postMessage",
               [d, bearer](const httplib::Request& req,
                           httplib::Response& res) {
                 if (!bearer(req, bot_token))
                   return impl::web(res, {{"ok", false},
                                          {"error", "invalid_auth"}});
                 std::lock_guard<std::mutex> g{d->mx};
                 ++d->post_calls;
                 if (d->limited > 0) {
                   --d->limited;
                   res.set_header("Retry-After",
                                  std::to_string(d->retry_after));
                   return impl::web(res, {{"ok", false},
                                          {"error", "ratelimited"}}, 429);
                 }
                 auto b = json::parse(req.body, nullptr, false);
                 if (!b.is_object() || !b.contains("channel")
                     || !b.contains("text"))
                   return impl::web(res, {{"ok", false},
                                          {"error", "invalid_arguments"}});
                 d->posts.push_back(b);
                 d->cv.notify_all();
                 impl::web(res, {{"ok", true}, {"channel", b["channel"]},
                                 {"ts", "1700000100.00010"
                                          + std::to_string(d->posts.size())},
                                 {"message", {{"text", b["text"]},
                                              {"user", bot_user}}}});
               });
  d->rest_port = d->rest.bind_to_any_port("127.0.0.1");
  d->rest_thread = std::thread{[d] { d->rest.listen_after_bind(); }};
  while (!d->rest.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

fake_slack::~fake_slack() {
  impl_->closing = true;
  impl_->rest.stop();
  impl_->rest_thread.join();
  impl_->socket.reset();
}

std::string fake_slack::api_base() const {
  return "http://127.0.0.1:" + std::to_string(impl_->rest_port) + "/api";
}

json fake_slack::message(const std::string& channel, const std::string& user,
                         const std::string& text,
                         const std::string& thread_ts) {
  static int n = 100;
  auto ts = "1700000000.000" + std::to_string(++n);
  json e{{"type", "message"},
         {"channel", channel},
         {"user", user},
         {"text", text},
         {"ts", ts},
         {"event_ts", ts},
         {"client_msg_id", "c" + std::to_string(n)},
         {"channel_type", channel[0] == 'D' ? "im" : "channel"}};
  if (!thread_ts.empty())
    e["thread_ts"] = thread_ts;
  return e;
}

std::string fake_slack::push_event(json event) {
  std::lock_guard<std::mutex> g{impl_->mx};
  auto id = "env-" + std::to_string(impl_->envelopes.size() + 1);
  json payload{{"token", "verif"}, {"team_id", "T1"}, {"api_app_id", "A1"},
               {"event", event}, {"type", "event_callback"},
               {"event_id", "Ev" + id}, {"event_time", 1700000000}};
  impl_->envelopes.push_back({id, payload, 0, true, false});
  return id;
}

void fake_slack::push_raw(const std::string& text) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->raw.push_back(text);
}

void fake_slack::drop() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->drop_now = true;
}

void fake_slack::ask_refresh() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->refresh = true;
}

void fake_slack::ignore_acks(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->ignore_acks = on;
}

void fake_slack::limit_posts(int n, int retry_after_s) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->limited = n;
  impl_->retry_after = retry_after_s;
}

int fake_slack::connections() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->connections;
}

bool fake_slack::wait_connections(int n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->connections >= n; });
}

std::vector<std::string> fake_slack::acked() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->acked;
}

bool fake_slack::wait_acked(size_t n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->acked.size() >= n; });
}

std::vector<json> fake_slack::posts() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->posts;
}

int fake_slack::post_calls() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->post_calls;
}

} // namespace nb::test
