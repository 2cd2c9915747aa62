#include "tests/platforms/fake_qq.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <httplib.h>

#include "tests/platforms/fake_qq_upload.hpp"
#include "tests/platforms/ws_listener.hpp"

namespace nb::test {

using nlohmann::json;

struct fake_qq::impl {
  int heartbeat_ms;
  mutable std::mutex mx;
  mutable std::condition_variable cv;
  std::vector<std::pair<int64_t, json>> log; ///< every dispatch with its seq
  int64_t seq = 0;
  int64_t heartbeat_seq = 0; ///< the last seq a heartbeat confirmed
  int64_t sent_upto = 0;
  std::deque<std::string> raw;
  std::string session_id;
  bool drop_now = false, reconnect_now = false, invalidate_now = false;
  bool overlap = false;
  int limited = 0;
  double retry_after = 0;
  int lifetime = 7200;
  std::set<std::string> tokens;
  int token_fetches = 0, identifies = 0, resumes = 0, heartbeats = 0,
      sessions = 0;
  int64_t intents = -1;
  std::string identify_token;
  std::set<std::string> seen_seq; ///< msg_id/msg_seq pairs already posted
  std::vector<json> posts;
  int post_calls = 0;
  std::map<std::string, std::string> files;
  fake_qq_uploads uploads;
  httplib::Server rest;
  std::thread rest_thread;
  int rest_port = 0;
  std::unique_ptr<ws_listener> gateway;
  std::atomic<bool> closing{false};

  bool authed(const httplib::Request& req, httplib::Response& res) {
    auto auth = req.get_header_value("Authorization");
    std::lock_guard<std::mutex> g{mx};
    if (auth.rfind("QQBot ", 0) == 0 && tokens.count(auth.substr(6)) > 0
        && req.get_header_value("X-Union-Appid") == app_id)
      return true;
    res.status = 401;
    res.set_content(R"({"message":"token not exist or expire","code":11244})",
                    "application/json");
    return false;
  }

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
    c.send(json{{"op", 10}, {"d", {{"heartbeat_interval", heartbeat_ms}}}}
             .dump());
    auto first = c.read(std::chrono::seconds(5));
    auto j = first ? json::parse(*first, nullptr, false) : json{};
    std::unique_lock<std::mutex> g{mx};
    auto token = j.is_object() && j.contains("d") && j["d"].is_object()
                   ? j["d"].value("token", "") : "";
    if (token.rfind("QQBot ", 0) != 0 || tokens.count(token.substr(6)) == 0) {
      g.unlock();
      c.close(4004, "invalid token");
      return;
    }
    if (j.value("op", 0) == 2) {
      ++identifies;
      identify_token = token;
      intents = j["d"].value("intents", int64_t{-1});
      session_id = "qq-sess-" + std::to_string(identifies);
      json ready{{"op", 0}, {"t", "READY"}, {"s", ++seq},
                 {"d", {{"version", 1}, {"session_id", session_id},
                        {"user", {{"id", "11"}, {"username", "nano-bot"},
                                  {"bot", true}}},
                        {"shard", {0, 1}}}}};
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
        c.close(4006, "invalid session id");
        return;
      }
      sent_upto = j["d"].value("seq", int64_t{0}) - (overlap ? 1 : 0);
      send_dispatches(c, g);
      ++sessions;
      json resumed{{"op", 0}, {"t", "RESUMED"}, {"s", ++seq}, {"d", ""}};
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
      if (reconnect_now || invalidate_now) {
        json op = reconnect_now ? json{{"op", 7}} : json{{"op", 9}, {"d", false}};
        reconnect_now = invalidate_now = false;
        g.unlock();
        c.send(op.dump());
        g.lock();
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
        if (p["d"].is_number_integer())
          heartbeat_seq = p["d"].get<int64_t>();
        g.unlock();
        c.send(json{{"op", 11}}.dump());
        g.lock();
      }
    }
  }

  void post_message(const httplib::Request& req, httplib::Response& res,
                    const char* kind) {
    if (!authed(req, res))
      return;
    std::lock_guard<std::mutex> g{mx};
    ++post_calls;
    if (limited > 0) {
      --limited;
      res.status = 429;
      res.set_content(json{{"message", "rate limited"}, {"code", 22009},
                           {"retry_after", retry_after}}
                        .dump(),
                      "application/json");
      return;
    }
    auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.value("msg_type", json{}).is_number_integer()) {
      res.status = 400;
      res.set_content(R"({"message":"invalid request","code":40034001})",
                      "application/json");
      return;
    }
    auto key = body.value("msg_id", "") + "/"
               + std::to_string(body.value("msg_seq", 0));
    if (!body.value("msg_id", "").empty() && !seen_seq.insert(key).second) {
      res.status = 400;
      res.set_content(R"({"message":"消息被去重，请检查请求msgseq","code":40054005})",
                      "application/json");
      return;
    }
    json rec{
      {"kind", kind},
      {"target", req.matches[1]},
      {"msg_type", body["msg_type"]},
      {"msg_id", body.value("msg_id", "")},
      {"msg_seq", body.value("msg_seq", 0)},
      {"content", body.value("content", "")},
      {"media", body.value("media", json{})},
      {"markdown", body.contains("markdown") && body["markdown"].is_object()
                     ? body["markdown"].value("content", "")
                     : ""}};
    posts.push_back(rec);
    cv.notify_all();
    res.set_content(json{{"id", "sent-" + std::to_string(posts.size())},
                         {"timestamp", "2026-12-02T12:00:00+08:00"}}
                      .dump(),
                    "application/json");
  }
};

fake_qq::fake_qq(int heartbeat_ms) : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  d->heartbeat_ms = heartbeat_ms;
  d->gateway = std::make_unique<ws_listener>(
    [d](chan::ws_connection& c) { d->serve(c); });
  d->rest.Post("/app/getAppAccessToken", [d](const httplib::Request& req,
                                             httplib::Response& res) {
    auto body = json::parse(req.body, nullptr, false);
    std::lock_guard<std::mutex> g{d->mx};
    ++d->token_fetches;
    if (!body.is_object() || body.value("appId", "") != app_id
        || body.value("clientSecret", "") != secret) {
      res.set_content(R"({"code":100016,"message":"invalid appid or secret"})",
                      "application/json");
      return;
    }
    auto token = "tok-" + std::to_string(d->token_fetches);
    d->tokens.insert(token);
    res.set_content(json{{"access_token", token},
                         {"expires_in", std::to_string(d->lifetime)}}
                      .dump(),
                    "application/json");
  });
  d->rest.Get("/gateway", [d](const httplib::Request& req,
                              httplib::Response& res) {
    if (!d->authed(req, res))
      return;
    res.set_content(json{{"url", d->gateway->url() + "/websocket"}}.dump(),
                    "application/json");
  });
  d->rest.Post(R"(/v2/users/([^/]+)/messages)",
               [d](const httplib::Request& req, httplib::Response& res) {
                 d->post_message(req, res, "users");
               });
  d->rest.Post(R"(/v2/groups/([^/]+)/messages)",
               [d](const httplib::Request& req, httplib::Response& res) {
                 d->post_message(req, res, "groups");
               });
  d->uploads.install(d->rest,
                     [d](const httplib::Request& req, httplib::Response& res) {
                       return d->authed(req, res);
                     });
  d->rest.Get(R"(/files/(.+))", [d](const httplib::Request& req,
                                    httplib::Response& res) {
    std::lock_guard<std::mutex> g{d->mx};
    auto it = d->files.find(req.matches[1]);
    if (it == d->files.end()) {
      res.status = 404;
      return;
    }
    res.set_content(it->second, "application/octet-stream");
  });
  d->rest.set_tcp_nodelay(true);
  d->rest_port = d->rest.bind_to_any_port("127.0.0.1");
  d->rest_thread = std::thread{[d] { d->rest.listen_after_bind(); }};
  while (!d->rest.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

fake_qq::~fake_qq() {
  impl_->closing = true;
  impl_->rest.stop();
  impl_->rest_thread.join();
  impl_->gateway.reset();
}

std::string fake_qq::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->rest_port);
}

json fake_qq::adapter_config() const {
  return json{{"enabled", true},      {"appId", app_id},
              {"secret", secret},     {"apiBase", base_url()},
              {"tokenBase", base_url()}, {"ackMessage", ""}};
}

std::string fake_qq::gateway_url() const {
  return impl_->gateway->url() + "/websocket";
}

std::string fake_qq::file_url(const std::string& name) const {
  return base_url() + "/files/" + name;
}

void fake_qq::host_file(const std::string& name, std::string bytes) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->files[name] = std::move(bytes);
}

void fake_qq::push(const std::string& type, json d) {
  std::lock_guard<std::mutex> g{impl_->mx};
  auto s = ++impl_->seq;
  impl_->log.emplace_back(
    s, json{{"op", 0}, {"id", type + ":" + std::to_string(s)}, {"t", type},
            {"s", s}, {"d", d}});
}

void fake_qq::push_raw(const std::string& text) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->raw.push_back(text);
}

void fake_qq::replay_overlap(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->overlap = on;
}

void fake_qq::drop() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->drop_now = true;
}

void fake_qq::ask_reconnect() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->reconnect_now = true;
}

void fake_qq::invalidate_session() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->invalidate_now = true;
}

void fake_qq::limit_posts(int n, double secs) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->limited = n;
  impl_->retry_after = secs;
}

void fake_qq::token_lifetime(int secs) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->lifetime = secs;
}

int fake_qq::token_fetches() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->token_fetches;
}

int fake_qq::identifies() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->identifies;
}

int fake_qq::resumes() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->resumes;
}

int64_t fake_qq::last_seq() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->seq;
}

int64_t fake_qq::confirmed_seq() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->heartbeat_seq;
}

int fake_qq::heartbeats() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->heartbeats;
}

int fake_qq::sessions() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->sessions;
}

int64_t fake_qq::last_intents() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->intents;
}

std::string fake_qq::last_identify_token() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->identify_token;
}

bool fake_qq::wait_sessions(int n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->sessions >= n; });
}

std::vector<json> fake_qq::uploads() const {
  return impl_->uploads.all();
}

std::vector<json> fake_qq::posts() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->posts;
}

int fake_qq::post_calls() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->post_calls;
}

} // namespace nb::test
