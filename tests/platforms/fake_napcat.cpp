#include "tests/platforms/fake_napcat.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include <httplib.h>

#include "actors/common/base64.hpp"

#include "tests/platforms/ws_listener.hpp"

namespace nb::test {

using nlohmann::json;

struct fake_napcat::impl {
  std::string token;
  mutable std::mutex mx;
  mutable std::condition_variable cv;
  std::deque<std::string> queued;
  std::string last_event;
  bool resend_last = false;
  bool drop_now = false;
  int failing = 0;
  bool holding = false;
  std::vector<json> held; ///< unanswered send frames
  int connections = 0, refused = 0, send_calls = 0;
  std::vector<json> sends;
  int64_t next_message_id = 70000;
  std::map<std::string, std::string> images;
  httplib::Server files;
  std::thread files_thread;
  int files_port = 0;
  std::unique_ptr<ws_listener> ws;
  std::atomic<bool> closing{false};

  static json meta(const char* type) {
    json m{{"time", 1764000000}, {"self_id", self_id},
           {"post_type", "meta_event"}, {"meta_event_type", type}};
    if (std::string{type} == "lifecycle") {
      m["sub_type"] = "connect";
    } else {
      m["status"] = {{"online", true}, {"good", true}};
      m["interval"] = 30000;
    }
    return m;
  }

  /// What a media segment carried: {"type", "base64_chars" and "bytes"
  /// (decoded) for base64://, else "file" as sent; "name" when given}.
  static json media_record(const json& seg) {
    json data = seg.value("data", json::object());
    auto file = data.value("file", "");
    json rec{{"type", seg.value("type", "")}};
    if (file.rfind("base64://", 0) == 0) {
      auto decoded = nb::base64_decode(std::string_view{file}.substr(9));
      rec["base64_chars"] = file.size() - 9;
      rec["bytes"] = decoded ? static_cast<int64_t>(decoded->size()) : -1;
    } else {
      rec["file"] = file;
    }
    if (data.contains("name"))
      rec["name"] = data["name"];
    return rec;
  }

  json answer_send(const json& req) {
    auto& p = req["params"];
    ++send_calls;
    if (failing > 0) {
      --failing;
      return {{"status", "failed"}, {"retcode", 1200}, {"data", nullptr},
              {"message", "send failed"}, {"wording", "send failed"},
              {"echo", req["echo"]}};
    }
    std::string text;
    json media = json::array();
    if (p.contains("message") && p["message"].is_array())
      for (auto& seg : p["message"]) {
        if (seg.value("type", "") == "text")
          text += seg["data"].value("text", "");
        else if (seg.value("type", "") != "at"
                 && seg.value("type", "") != "reply")
          media.push_back(media_record(seg));
      }
    json rec{{"action", req["action"]}, {"text", text}, {"media", media}};
    if (p.contains("group_id"))
      rec["group_id"] = p["group_id"];
    if (p.contains("user_id"))
      rec["user_id"] = p["user_id"];
    sends.push_back(rec);
    cv.notify_all();
    return {{"status", "ok"}, {"retcode", 0},
            {"data", {{"message_id", ++next_message_id}}},
            {"message", ""}, {"wording", ""}, {"echo", req["echo"]}};
  }

  /// The answer to one action frame (null: none now).
  json act(const json& req) {
    auto action = req.value("action", "");
    if (action == "get_login_info")
      return {{"status", "ok"}, {"retcode", 0},
              {"data", {{"user_id", self_id}, {"nickname", "nano"}}},
              {"echo", req["echo"]}};
    if (action == "send_private_msg" || action == "send_group_msg") {
      if (holding) {
        held.push_back(req);
        cv.notify_all();
        return nullptr;
      }
      return answer_send(req);
    }
    return {{"status", "failed"}, {"retcode", 1404}, {"data", nullptr},
            {"echo", req.value("echo", json{})}};
  }

  void serve(chan::ws_connection& c) {
    std::unique_lock<std::mutex> g{mx};
    ++connections;
    if (resend_last && !last_event.empty())
      queued.push_front(last_event);
    cv.notify_all();
    g.unlock();
    c.send(meta("lifecycle").dump());
  c.send(meta("heartbeat").dump());
    g.lock();
    while (!closing.load() && c.is_open()) {
      if (drop_now) {
        drop_now = false;
        c.drop();
        break;
      }
      std::vector<std::string> out;
      while (!queued.empty()) {
        out.push_back(queued.front());
        queued.pop_front();
      }
      if (!holding)
        for (auto& h : std::exchange(held, {}))
          out.push_back(answer_send(h).dump());
      g.unlock();
      for (auto& text : out)
        c.send(text);
      auto msg = c.read(std::chrono::milliseconds(20));
      g.lock();
      if (!msg)
        continue;
      auto req = json::parse(*msg, nullptr, false);
      if (!req.is_object() || !req.contains("action"))
        continue;
      auto ans = act(req);
      if (ans.is_null())
        continue;
      g.unlock();
      c.send(ans.dump());
      g.lock();
    }
    held.clear(); // the connection is gone: those answers never come
  }
};

fake_napcat::fake_napcat(std::string token) : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  d->token = std::move(token);
  d->ws = std::make_unique<ws_listener>(
    [d](chan::ws_connection& c) { d->serve(c); },
    [d](const std::map<std::string, std::string>& h) {
      auto it = h.find("authorization");
      if (it != h.end() && it->second == "Bearer " + d->token)
        return 0;
      std::lock_guard<std::mutex> g{d->mx};
      ++d->refused;
      return 401;
    });
  d->files.Get(R"(/img/(.+))", [d](const httplib::Request& req,
                                   httplib::Response& res) {
    std::lock_guard<std::mutex> g{d->mx};
    auto it = d->images.find(req.matches[1]);
    if (it == d->images.end()) {
      res.status = 404;
      return;
    }
    res.set_content(it->second, "image/png");
  });
  d->files_port = d->files.bind_to_any_port("127.0.0.1");
  d->files_thread = std::thread{[d] { d->files.listen_after_bind(); }};
  while (!d->files.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

fake_napcat::~fake_napcat() {
  impl_->closing = true;
  impl_->files.stop();
  impl_->files_thread.join();
  impl_->ws.reset();
}

std::string fake_napcat::ws_url() const {
  return impl_->ws->url();
}

std::string fake_napcat::image_url(const std::string& name) const {
  return "http://127.0.0.1:" + std::to_string(impl_->files_port) + "/img/"
         + name;
}

void fake_napcat::host_image(const std::string& name, std::string bytes) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->images[name] = std::move(bytes);
}

json fake_napcat::private_message(int64_t user, const std::string& text,
                                  int64_t message_id) {
  return {{"time", 1764000000},
          {"self_id", self_id},
          {"post_type", "message"},
          {"message_type", "private"},
          {"sub_type", "friend"},
          {"message_id", message_id},
          {"user_id", user},
          {"message", json::array({{{"type", "text"},
                                    {"data", {{"text", text}}}}})},
          {"raw_message", text},
          {"font", 14},
          {"sender", {{"user_id", user}, {"nickname", "u" + std::to_string(user)},
                      {"sex", "unknown"}, {"age", 0}}}};
}

json fake_napcat::group_message(int64_t group, int64_t user,
                                const std::string& text, int64_t message_id,
                                bool at_bot) {
  json segs = json::array();
  if (at_bot)
    segs.push_back({{"type", "at"},
                    {"data", {{"qq", std::to_string(self_id)}, {"name", "nano"}}}});
  segs.push_back({{"type", "text"}, {"data", {{"text", " " + text}}}});
  return {{"time", 1764000000},
          {"self_id", self_id},
          {"post_type", "message"},
          {"message_type", "group"},
          {"sub_type", "normal"},
          {"message_id", message_id},
          {"group_id", group},
          {"user_id", user},
          {"message", segs},
          {"raw_message", text},
          {"font", 14},
          {"sender", {{"user_id", user}, {"nickname", "u" + std::to_string(user)},
                      {"card", "Card" + std::to_string(user)},
                      {"role", "member"}}}};
}

void fake_napcat::push(json event) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->last_event = event.dump();
  impl_->queued.push_back(impl_->last_event);
}

void fake_napcat::push_raw(const std::string& text) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->queued.push_back(text);
}

void fake_napcat::resend_last_on_reconnect(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->resend_last = on;
}

void fake_napcat::drop() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->drop_now = true;
}

void fake_napcat::fail_sends(int n) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->failing = n;
}

void fake_napcat::hold_answers(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->holding = on;
}

int fake_napcat::connections() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->connections;
}

bool fake_napcat::wait_connections(int n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->connections >= n; });
}

int fake_napcat::refused() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->refused;
}

std::vector<json> fake_napcat::sends() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->sends;
}

int fake_napcat::send_calls() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->send_calls;
}

bool fake_napcat::wait_sends(size_t n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->sends.size() >= n; });
}

bool fake_napcat::wait_held(size_t n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->held.size() >= n; });
}

} // namespace nb::test
