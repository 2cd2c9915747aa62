#include "tests/platforms/fake_matrix.hpp"

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <httplib.h>

namespace nb::test {

using nlohmann::json;

struct fake_matrix::impl {
  httplib::Server svr;
  std::thread thread;
  int port = 0;
  mutable std::mutex mx;
  mutable std::condition_variable cv;
  struct entry {
    std::string room;
    int members;
    json event;
  };
  std::vector<entry> log; ///< the position in it is the sync token
  std::vector<std::string> invites;
  std::map<std::string, std::string> txns; ///< txn id -> event id
  std::vector<json> sent;
  std::vector<std::string> joined;
  std::set<std::string> tokens{fake_matrix::token};
  int send_calls = 0, limited = 0, retry_ms = 0, logins = 0;
  size_t synced_past = 0; ///< the newest since token a client sent
  int since_syncs = 0;    ///< /sync calls that carried a since token
  bool garbage = false, lose = false, stopping = false;

  static void answer(httplib::Response& res, int status, const json& body) {
    res.status = status;
    res.set_content(body.dump(), "application/json");
  }

  bool authed(const httplib::Request& req, httplib::Response& res) {
    auto h = req.get_header_value("Authorization");
    std::lock_guard<std::mutex> g{mx};
    if (h.rfind("Bearer ", 0) == 0 && tokens.count(h.substr(7)))
      return true;
    answer(res, 401, {{"errcode", "M_UNKNOWN_TOKEN"},
                      {"error", "Unrecognised access token."},
                      {"soft_logout", false}});
    return false;
  }

  void sync(const httplib::Request& req, httplib::Response& res) {
    std::unique_lock<std::mutex> g{mx};
    if (garbage) {
      garbage = false;
      res.set_content(R"({"rooms": "nope"})", "application/json");
      return;
    }
    size_t since = 0;
    bool has_since = req.has_param("since");
    if (has_since)
      since = std::stoul(req.get_param_value("since").substr(1));
    if (has_since) {
      synced_past = std::max(synced_past, since);
      ++since_syncs;
    }
    int timeout = req.has_param("timeout")
                    ? std::stoi(req.get_param_value("timeout")) : 0;
    cv.wait_for(g, std::chrono::milliseconds(timeout), [&] {
      return log.size() > since || !invites.empty() || stopping;
    });
    json join = json::object();
    for (size_t i = since; i < log.size(); ++i) {
      auto& e = log[i];
      auto& room = join[e.room];
      if (room.is_null())
        room = {{"timeline", {{"events", json::array()}, {"limited", false},
                              {"prev_batch", "p" + std::to_string(i)}}},
                {"state", {{"events", json::array()}}},
                {"ephemeral", {{"events", json::array()}}},
                {"account_data", {{"events", json::array()}}},
                {"summary", {{"m.joined_member_count", e.members}}},
                {"unread_notifications", {{"highlight_count", 0},
                                          {"notification_count", 0}}}};
      room["timeline"]["events"].push_back(e.event);
    }
    json invite = json::object();
    for (auto& r : invites)
      invite[r] = {{"invite_state", {{"events", json::array()}}}};
    invites.clear();
    answer(res, 200, {{"next_batch", "s" + std::to_string(log.size())},
                      {"rooms", {{"join", join}, {"invite", invite},
                                 {"leave", json::object()}}},
                      {"presence", {{"events", json::array()}}},
                      {"account_data", {{"events", json::array()}}}});
  }

  void send(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> g{mx};
    ++send_calls;
    if (limited > 0) {
      --limited;
      return answer(res, 429, {{"errcode", "M_LIMIT_EXCEEDED"},
                               {"error", "Too Many Requests"},
                               {"retry_after_ms", retry_ms}});
    }
    std::string room = req.matches[1], txn = req.matches[2];
    auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("msgtype")
        || !body.contains("body"))
      return answer(res, 400, {{"errcode", "M_BAD_JSON"},
                               {"error", "missing msgtype or body"}});
    auto it = txns.find(txn);
    std::string id = it != txns.end()
                       ? it->second : "$ev" + std::to_string(txns.size() + 1);
    if (it == txns.end()) {
      txns[txn] = id;
      body["room_id"] = room;
      body["txn_id"] = txn;
      sent.push_back(body);
    }
    if (lose) {
      lose = false;
      res.status = 502;
      res.set_content("<html>Bad Gateway</html>", "text/html");
      return;
    }
    answer(res, 200, {{"event_id", id}});
  }

  void start() {
    port = port ? (svr.bind_to_port("127.0.0.1", port) ? port : -1)
                : svr.bind_to_any_port("127.0.0.1");
    if (port < 0)
      throw std::runtime_error("fake_matrix: cannot bind its port again");
    thread = std::thread{[this] { svr.listen_after_bind(); }};
    while (!svr.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  void halt() {
    {
      std::lock_guard<std::mutex> g{mx};
      stopping = true;
    }
    cv.notify_all();
    svr.stop();
    if (thread.joinable())
      thread.join();
    std::lock_guard<std::mutex> g{mx};
    stopping = false;
  }
};

fake_matrix::fake_matrix() : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  const std::string api = "/_matrix/client/v3";
  d->svr.Post(api + "/login", [d](const httplib::Request& req,
                                  httplib::Response& res) {
    auto b = json::parse(req.body, nullptr, false);
    std::lock_guard<std::mutex> g{d->mx};
    ++d->logins;
    if (!b.is_object() || b.value("password", "") != password)
      return impl::answer(res, 403, {{"errcode", "M_FORBIDDEN"},
                                     {"error", "Invalid username or password"}});
    auto tok = "syt_login_" + std::to_string(d->logins);
    d->tokens.insert(tok);
    impl::answer(res, 200, {{"user_id", bot}, {"access_token", tok},
                            {"device_id", "DEV" + std::to_string(d->logins)},
                            {"home_server", "local"}});
  });
  d->svr.Get(api + "/account/whoami",
             [d](const httplib::Request& req, httplib::Response& res) {
               if (d->authed(req, res))
                 impl::answer(res, 200, {{"user_id", bot},
                                         {"device_id", "DEV"},
                                         {"is_guest", false}});
             });
  d->svr.Get(api + "/sync", [d](const httplib::Request& req,
                                httplib::Response& res) {
    if (d->authed(req, res))
      d->sync(req, res);
  });
  d->svr.Put(api + R"(/rooms/([^/]+)/send/m\.room\.message/([^/]+))",
             [d](const httplib::Request& req, httplib::Response& res) {
               if (d->authed(req, res))
                 d->send(req, res);
             });
  d->svr.Post(api + R"(/rooms/([^/]+)/join)",
              [d](const httplib::Request& req, httplib::Response& res) {
                if (!d->authed(req, res))
                  return;
                std::lock_guard<std::mutex> g{d->mx};
                d->joined.push_back(req.matches[1]);
                impl::answer(res, 200, {{"room_id", req.matches[1]}});
              });
  d->svr.new_task_queue = [] { return new httplib::ThreadPool(16); };
  d->start();
}

fake_matrix::~fake_matrix() {
  impl_->halt();
}

std::string fake_matrix::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port);
}

void fake_matrix::push_event(const std::string& room, json event) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->log.push_back({room, 2, std::move(event)});
  impl_->cv.notify_all();
}

void fake_matrix::push_text(const std::string& room, const std::string& sender,
                            const std::string& body, int members,
                            bool mention) {
  std::lock_guard<std::mutex> g{impl_->mx};
  json content{{"msgtype", "m.text"}, {"body", body}};
  if (mention)
    content["m.mentions"] = {{"user_ids", json::array({bot})}};
  json ev{{"type", "m.room.message"},
          {"event_id", "$in" + std::to_string(impl_->log.size() + 1)},
          {"sender", sender},
          {"origin_server_ts", 1700000000000},
          {"content", content},
          {"unsigned", {{"age", 10}}}};
  impl_->log.push_back({room, members, ev});
  impl_->cv.notify_all();
}

void fake_matrix::invite(const std::string& room) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->invites.push_back(room);
  impl_->cv.notify_all();
}

void fake_matrix::go_down() { impl_->halt(); }
void fake_matrix::come_up() { impl_->start(); }

void fake_matrix::garbage_sync_once() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->garbage = true;
}

void fake_matrix::limit_sends(int n, int retry_after_ms) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->limited = n;
  impl_->retry_ms = retry_after_ms;
}

void fake_matrix::lose_next_answer() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->lose = true;
}

std::vector<json> fake_matrix::sent() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->sent;
}

int fake_matrix::send_calls() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->send_calls;
}

std::vector<std::string> fake_matrix::joined() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->joined;
}

size_t fake_matrix::synced_past() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->synced_past;
}

int fake_matrix::since_syncs() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->since_syncs;
}

int fake_matrix::logins() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->logins;
}

} // namespace nb::test
