#include "tests/platforms/fake_dingtalk.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <httplib.h>

#include "tests/platforms/fake_dingtalk_upload.hpp"
#include "tests/platforms/ws_listener.hpp"

namespace nb::test {

using nlohmann::json;

namespace {

std::string now_ms() {
  using namespace std::chrono;
  return std::to_string(
    duration_cast<milliseconds>(system_clock::now().time_since_epoch())
      .count());
}

json stream_frame_json(const std::string& type, const std::string& topic,
                       const std::string& id, const std::string& data) {
  return json{{"specVersion", "1.0"},
              {"type", type},
              {"headers", {{"appId", "app-1"},
                           {"connectionId", "conn-1"},
                           {"contentType", "application/json"},
                           {"messageId", id},
                           {"time", now_ms()},
                           {"topic", topic}}},
              {"data", data}};
}

} // namespace

struct fake_dingtalk::impl {
  mutable std::mutex mx;
  mutable std::condition_variable cv;
  struct callback {
    std::string id;
    std::string data;
    bool due = true;
    bool acked = false;
  };
  std::vector<callback> callbacks;
  std::deque<std::string> raw; ///< SYSTEM frames and raw text, sent once
  std::set<std::string> ping_ids;
  std::vector<std::string> acked;
  std::vector<json> ack_frames, pongs, sends, uploads;
  std::map<std::string, std::string> files;
  std::set<std::string> tokens;
  bool drop_now = false, ignore_acks = false;
  int limited = 0, retry_after = 1, opens = 0, connections = 0;
  int token_calls = 0, send_calls = 0, counter = 0;
  httplib::Server rest;
  std::thread rest_thread;
  int rest_port = 0;
  std::unique_ptr<ws_listener> socket;
  std::atomic<bool> closing{false};

  void serve(chan::ws_connection& c) {
    {
      std::lock_guard<std::mutex> g{mx};
      ++connections;
      for (auto& cb : callbacks)
        cb.due = !cb.acked; // unacknowledged: sent again
    }
    cv.notify_all();
    std::unique_lock<std::mutex> g{mx};
    while (!closing.load() && c.is_open()) {
      if (drop_now) {
        drop_now = false;
        c.drop();
        break;
      }
      std::vector<std::string> out;
      while (!raw.empty()) {
        out.push_back(raw.front());
        raw.pop_front();
      }
      for (auto& cb : callbacks)
        if (!cb.acked && cb.due) {
          cb.due = false;
          out.push_back(stream_frame_json("CALLBACK",
                                          "/v1.0/im/bot/messages/get", cb.id,
                                          cb.data)
                          .dump());
        }
      g.unlock();
      for (auto& t : out)
        c.send(t);
      auto msg = c.read(std::chrono::milliseconds(20));
      g.lock();
      if (msg)
        take_answer(*msg);
    }
  }

  /// An upstream frame: an ack {code, headers{messageId}, message, data}.
  void take_answer(const std::string& text) {
    auto j = json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("headers") || !j["headers"].is_object()
        || j.value("code", 0) != 200)
      return;
    auto id = j["headers"].value("messageId", "");
    if (ping_ids.count(id)) {
      pongs.push_back(j);
    } else {
      acked.push_back(id);
      ack_frames.push_back(j);
      if (!ignore_acks)
        for (auto& cb : callbacks)
          if (cb.id == id)
            cb.acked = true;
    }
    cv.notify_all();
  }

  static void answer(httplib::Response& res, const json& body,
                     int status = 200) {
    res.status = status;
    res.set_content(body.dump(), "application/json;charset=utf-8");
  }

  static json error(const std::string& code, const std::string& message) {
    return json{{"requestid", "req-1"}, {"code", code}, {"message", message}};
  }

  /// A robot send: checks the token and the body, or answers 429.
  void robot_send(const httplib::Request& req, httplib::Response& res,
                  bool group) {
    std::lock_guard<std::mutex> g{mx};
    if (!tokens.count(req.get_header_value("x-acs-dingtalk-access-token")))
      return answer(res, error("InvalidAuthentication", "token invalid"), 401);
    ++send_calls;
    if (limited > 0) {
      --limited;
      res.set_header("Retry-After", std::to_string(retry_after));
      return answer(res, error("Throttling.Api", "too many requests"), 429);
    }
    auto b = json::parse(req.body, nullptr, false);
    bool shaped = b.is_object() && b.value("robotCode", "") == client_id
                  && b.contains("msgKey") && b["msgParam"].is_string()
                  && (group ? b["openConversationId"].is_string()
                            : b["userIds"].is_array());
    auto param = shaped ? json::parse(b["msgParam"].get<std::string>(),
                                      nullptr, false)
                        : json{};
    if (!param.is_object())
      return answer(res, error("InvalidParameter", "bad request body"), 400);
    sends.push_back(json{{"path", req.path}, {"body", b}, {"param", param}});
    cv.notify_all();
    json ok{{"processQueryKey", "pq-" + std::to_string(sends.size())}};
    if (!group) {
      ok["invalidStaffIdList"] = json::array();
      ok["flowControlledStaffIdList"] = json::array();
    }
    answer(res, ok);
  }
};

fake_dingtalk::fake_dingtalk() : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  d->socket = std::make_unique<ws_listener>(
    [d](chan::ws_connection& c) { d->serve(c); });
  d->rest.Post("/v1.0/gateway/connections/open",
               [d](const httplib::Request& req, httplib::Response& res) {
                 auto b = json::parse(req.body, nullptr, false);
                 if (!b.is_object() || b.value("clientId", "") != client_id
                     || b.value("clientSecret", "") != client_secret)
                   return impl::answer(
                     res, impl::error("InvalidAuthentication",
                                      "clientId or clientSecret is invalid"),
                     401);
                 bool subscribed = false;
                 for (auto& s : b.value("subscriptions", json::array()))
                   subscribed |= s.value("type", "") == "CALLBACK"
                                 && s.value("topic", "")
                                      == "/v1.0/im/bot/messages/get";
                 if (!subscribed)
                   return impl::answer(
                     res, impl::error("InvalidParameter", "subscriptions"),
                     400);
                 std::lock_guard<std::mutex> g{d->mx};
                 ++d->opens;
                 impl::answer(res, {{"endpoint", d->socket->url() + "/connect"},
                                    {"ticket", "tk+" + std::to_string(d->opens)
                                                 + "/="}});
               });
  d->rest.Post("/v1.0/oauth2/accessToken",
               [d](const httplib::Request& req, httplib::Response& res) {
                 auto b = json::parse(req.body, nullptr, false);
                 if (!b.is_object() || b.value("appKey", "") != client_id
                     || b.value("appSecret", "") != client_secret)
                   return impl::answer(
                     res, impl::error("invalidClientIdOrSecret",
                                      "无效的clientId或者clientSecret"),
                     400);
                 std::lock_guard<std::mutex> g{d->mx};
                 ++d->token_calls;
                 auto tok = "at-" + std::to_string(d->token_calls);
                 d->tokens.insert(tok);
                 impl::answer(res, {{"accessToken", tok}, {"expireIn", 7200}});
               });
  d->rest.Post("/v1.0/robot/oToMessages/batchSend",
               [d](const httplib::Request& req, httplib::Response& res) {
                 d->robot_send(req, res, false);
               });
  d->rest.Post("/v1.0/robot/groupMessages/send",
               [d](const httplib::Request& req, httplib::Response& res) {
                 d->robot_send(req, res, true);
               });
  d->rest.Post("/v1.0/robot/messageFiles/download",
               [d](const httplib::Request& req, httplib::Response& res) {
                 std::lock_guard<std::mutex> g{d->mx};
                 if (!d->tokens.count(
                       req.get_header_value("x-acs-dingtalk-access-token")))
                   return impl::answer(
                     res, impl::error("InvalidAuthentication", "token"), 401);
                 auto b = json::parse(req.body, nullptr, false);
                 auto code = b.is_object() ? b.value("downloadCode", "") : "";
                 if (!d->files.count(code)
                     || b.value("robotCode", "") != client_id)
                   return impl::answer(
                     res, impl::error("InvalidParameter", "downloadCode"), 400);
                 impl::answer(res, {{"downloadUrl",
                                     "http://127.0.0.1:"
                                       + std::to_string(d->rest_port)
                                       + "/files/" + code}});
               });
  d->rest.Get(R"(/files/(.+))",
              [d](const httplib::Request& req, httplib::Response& res) {
                std::lock_guard<std::mutex> g{d->mx};
                auto it = d->files.find(req.matches[1].str());
                if (it == d->files.end()) {
                  res.status = 404;
                  return;
                }
                res.set_content(it->second, "image/jpeg");
              });
  add_dingtalk_upload_route(
    d->rest,
    [d](const std::string& tok) {
      std::lock_guard<std::mutex> g{d->mx};
      return d->tokens.count(tok) > 0;
    },
    [d](json rec) {
      std::lock_guard<std::mutex> g{d->mx};
      rec["media_id"] = "@lAz" + rec["type"].get<std::string>()
                        + std::to_string(d->uploads.size() + 1);
      d->uploads.push_back(std::move(rec));
      return d->uploads.size();
    });
  d->rest.set_tcp_nodelay(true); // headers and body go out apart
  d->rest_port = d->rest.bind_to_any_port("127.0.0.1");
  d->rest_thread = std::thread{[d] { d->rest.listen_after_bind(); }};
  while (!d->rest.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

fake_dingtalk::~fake_dingtalk() {
  impl_->closing = true;
  impl_->rest.stop();
  impl_->rest_thread.join();
  impl_->socket.reset();
}

std::string fake_dingtalk::api_base() const {
  return "http://127.0.0.1:" + std::to_string(impl_->rest_port);
}

void fake_dingtalk::add_file(const std::string& code,
                             const std::string& bytes) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->files[code] = bytes;
}

std::string fake_dingtalk::push(const json& data) {
  std::lock_guard<std::mutex> g{impl_->mx};
  auto id = "cb_" + std::to_string(++impl_->counter) + "_18b7df";
  impl_->callbacks.push_back({id, data.dump(), true, false});
  return id;
}

void fake_dingtalk::push_raw(const std::string& text) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->raw.push_back(text);
}

void fake_dingtalk::ping(const std::string& data) {
  std::lock_guard<std::mutex> g{impl_->mx};
  auto id = "ping_" + std::to_string(++impl_->counter);
  impl_->ping_ids.insert(id);
  impl_->raw.push_back(stream_frame_json("SYSTEM", "ping", id, data).dump());
}

void fake_dingtalk::ask_disconnect() {
  std::lock_guard<std::mutex> g{impl_->mx};
  auto id = "sys_" + std::to_string(++impl_->counter);
  impl_->raw.push_back(
    stream_frame_json(
      "SYSTEM", "disconnect", id,
      json{{"reason", "persistent connection is timeout"}}.dump())
      .dump());
}

void fake_dingtalk::drop() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->drop_now = true;
}

void fake_dingtalk::ignore_acks(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->ignore_acks = on;
}

void fake_dingtalk::limit_sends(int n, int retry_after_s) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->limited = n;
  impl_->retry_after = retry_after_s;
}

int fake_dingtalk::opens() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->opens;
}

int fake_dingtalk::connections() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->connections;
}

bool fake_dingtalk::wait_connections(int n,
                                     std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->connections >= n; });
}

int fake_dingtalk::token_calls() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->token_calls;
}

std::vector<std::string> fake_dingtalk::acked() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->acked;
}

bool fake_dingtalk::wait_acked(size_t n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->acked.size() >= n; });
}

std::vector<json> fake_dingtalk::ack_frames() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->ack_frames;
}

std::vector<json> fake_dingtalk::pongs() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->pongs;
}

bool fake_dingtalk::wait_pongs(size_t n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->pongs.size() >= n; });
}

std::vector<json> fake_dingtalk::uploads() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->uploads;
}

std::vector<json> fake_dingtalk::sends() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->sends;
}

int fake_dingtalk::send_calls() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->send_calls;
}

} // namespace nb::test
