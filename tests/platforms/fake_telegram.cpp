#include "tests/platforms/fake_telegram.hpp"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include <httplib.h>

namespace nb::test {

using nlohmann::json;

struct fake_telegram::impl {
  std::string token;
  httplib::Server svr;
  std::thread thread;
  int port = 0;
  mutable std::mutex mx;
  mutable std::condition_variable cv;
  std::deque<json> updates;
  std::vector<json> history; ///< every update pushed, for redelivery
  int64_t next_update = 700;
  int64_t next_message = 1;
  /// Ids of the users' messages: unique, as Telegram's are in a chat (a
  /// redelivered update carries the same one).
  int64_t next_incoming = 1001;
  int64_t last_offset = 0;
  int failing_polls = 0;
  std::string fail_how;
  int limited_sends = 0;
  int retry_after = 1;
  bool refuse_html = false;
  std::vector<json> sent;
  std::map<std::string, int> calls;
  std::map<std::string, std::string> files; ///< file_id -> bytes
  bool stopping = false;

  static json ok(json result) { return {{"ok", true}, {"result", result}}; }
  static void reply(httplib::Response& res, int status, const json& body) {
    res.status = status;
    res.set_content(body.dump(), "application/json");
  }
  static void error(httplib::Response& res, int code, std::string what,
                    int retry_after = 0) {
    json b{{"ok", false}, {"error_code", code}, {"description", what}};
    if (retry_after)
      b["parameters"] = {{"retry_after", retry_after}};
    reply(res, code, b);
  }

  void get_updates(const json& p, httplib::Response& res) {
    std::unique_lock<std::mutex> g{mx};
    if (failing_polls > 0) {
      --failing_polls;
      auto how = fail_how;
      g.unlock();
      if (how == "429")
        return error(res, 429, "Too Many Requests: retry after 1", 1);
      if (how == "garbage") {
        res.status = 200;
        res.set_content("<html>oops", "application/json");
        return;
      }
      res.status = 502;
      res.set_content("<html><body>502 Bad Gateway</body></html>",
                      "text/html");
      return;
    }
    int64_t offset = p.value("offset", int64_t{0});
    last_offset = offset;
    // An offset confirms every update before it.
    while (!updates.empty() && offset > 0
           && updates.front()["update_id"].get<int64_t>() < offset)
      updates.pop_front();
    auto timeout = std::chrono::seconds(p.value("timeout", 0));
    cv.wait_for(g, timeout, [&] { return !updates.empty() || stopping; });
    json list = json::array();
    size_t limit = p.value("limit", 100);
    for (auto& u : updates)
      if (list.size() < limit)
        list.push_back(u);
    reply(res, 200, ok(list));
  }

  void send(const std::string& method, json p, httplib::Response& res) {
    std::lock_guard<std::mutex> g{mx};
    if (!p.contains("chat_id") || !p.contains("text")
        || !p["text"].is_string() || p["text"].get<std::string>().empty())
      return error(res, 400, "Bad Request: message text is empty");
    if (p["text"].get<std::string>().size() > 4096)
      return error(res, 400, "Bad Request: message is too long");
    if (method == "sendMessage" && limited_sends > 0) {
      --limited_sends;
      return error(res, 429,
                   "Too Many Requests: retry after "
                     + std::to_string(retry_after), retry_after);
    }
    if (refuse_html && p.value("parse_mode", "") == "HTML") {
      refuse_html = false;
      return error(res, 400,
                   "Bad Request: can't parse entities: unexpected end tag");
    }
    int64_t id = method == "sendMessage" ? next_message++
                                         : p.value("message_id", int64_t{0});
    p["method"] = method;
    p["message_id"] = id;
    sent.push_back(p);
    cv.notify_all();
    reply(res, 200, ok({{"message_id", id},
                        {"date", 1700000000},
                        {"chat", {{"id", p["chat_id"]}, {"type", "private"}}},
                        {"text", p["text"]}}));
  }

  void handle(const std::string& method, const httplib::Request& req,
              httplib::Response& res) {
    {
      std::lock_guard<std::mutex> g{mx};
      ++calls[method];
    }
    json p = req.body.empty() ? json::object()
                              : json::parse(req.body, nullptr, false);
    if (p.is_discarded())
      return error(res, 400, "Bad Request: invalid JSON");
    if (method == "getMe")
      return reply(res, 200,
                   ok({{"id", bot_id}, {"is_bot", true},
                       {"first_name", "Nano"}, {"username", bot_username}}));
    if (method == "getUpdates")
      return get_updates(p, res);
    if (method == "sendMessage" || method == "editMessageText")
      return send(method, p, res);
    if (method == "getFile") {
      std::lock_guard<std::mutex> g{mx};
      auto id = p.value("file_id", "");
      if (!files.count(id))
        return error(res, 400, "Bad Request: invalid file_id");
      return reply(res, 200,
                   ok({{"file_id", id}, {"file_unique_id", "u" + id},
                       {"file_size", files[id].size()},
                       {"file_path", "photos/" + id + ".jpg"}}));
    }
    error(res, 404, "Not Found");
  }
};

fake_telegram::fake_telegram(std::string token)
  : impl_(std::make_unique<impl>()) {
  impl_->token = std::move(token);
  auto* d = impl_.get();
  d->svr.Post(R"(/bot([^/]+)/(\w+))",
              [d](const httplib::Request& req, httplib::Response& res) {
                if (req.matches[1] != d->token)
                  return impl::error(res, 401, "Unauthorized");
                d->handle(req.matches[2], req, res);
              });
  d->svr.Get(R"(/file/bot([^/]+)/photos/(\w+)\.jpg)",
             [d](const httplib::Request& req, httplib::Response& res) {
               std::lock_guard<std::mutex> g{d->mx};
               auto it = d->files.find(req.matches[2]);
               if (req.matches[1] != d->token || it == d->files.end()) {
                 res.status = 404;
                 return;
               }
               res.set_content(it->second, "image/jpeg");
             });
  d->svr.new_task_queue = [] { return new httplib::ThreadPool(16); };
  d->port = d->svr.bind_to_any_port("127.0.0.1");
  d->thread = std::thread{[d] { d->svr.listen_after_bind(); }};
  while (!d->svr.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void fake_telegram::go_down() {
  {
    std::lock_guard<std::mutex> g{impl_->mx};
    impl_->stopping = true;
  }
  impl_->cv.notify_all();
  impl_->svr.stop();
  if (impl_->thread.joinable())
    impl_->thread.join();
}

void fake_telegram::come_up() {
  {
    std::lock_guard<std::mutex> g{impl_->mx};
    impl_->stopping = false;
  }
  auto* d = impl_.get();
  if (!d->svr.bind_to_port("127.0.0.1", d->port))
    throw std::runtime_error("fake_telegram: cannot bind its port again");
  d->thread = std::thread{[d] { d->svr.listen_after_bind(); }};
  while (!d->svr.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

fake_telegram::~fake_telegram() {
  go_down();
}

void fake_telegram::forget_confirmations() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->updates.assign(impl_->history.begin(), impl_->history.end());
  impl_->cv.notify_all();
}

std::string fake_telegram::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port);
}

int64_t fake_telegram::push_update(json u) {
  std::lock_guard<std::mutex> g{impl_->mx};
  auto id = impl_->next_update++;
  u["update_id"] = id;
  impl_->history.push_back(u);
  impl_->updates.push_back(std::move(u));
  impl_->cv.notify_all();
  return id;
}

namespace {

json user(int64_t id) {
  return {{"id", id}, {"is_bot", false}, {"first_name", "Ann"},
          {"username", "ann" + std::to_string(id)}, {"language_code", "en"}};
}

} // namespace

int64_t fake_telegram::push_text(int64_t chat, int64_t from,
                                 const std::string& text) {
  json m{{"message_id", impl_->next_incoming++},
         {"from", user(from)},
         {"chat", {{"id", chat}, {"first_name", "Ann"}, {"type", "private"}}},
         {"date", 1700000000},
         {"text", text}};
  if (!text.empty() && text[0] == '/')
    m["entities"] = json::array({{{"offset", 0},
                                  {"length", text.find(' ') == std::string::npos
                                               ? text.size() : text.find(' ')},
                                  {"type", "bot_command"}}});
  return push_update({{"message", m}});
}

int64_t fake_telegram::push_group(int64_t chat, int64_t from,
                                  const std::string& text, bool mention,
                                  int64_t topic) {
  std::string body = mention ? "@" + std::string{bot_username} + " " + text
                             : text;
  json m{{"message_id", impl_->next_incoming++},
         {"from", user(from)},
         {"chat", {{"id", chat}, {"title", "Team"}, {"type", "supergroup"},
                   {"is_forum", topic > 0}}},
         {"date", 1700000000},
         {"text", body}};
  if (mention)
    m["entities"] = json::array(
      {{{"offset", 0}, {"length", 1 + std::string{bot_username}.size()},
        {"type", "mention"}}});
  if (topic > 0) {
    m["message_thread_id"] = topic;
    m["is_topic_message"] = true;
  }
  return push_update({{"message", m}});
}

int64_t fake_telegram::push_photo(int64_t chat, int64_t from,
                                  const std::string& caption,
                                  const std::string& bytes) {
  std::string id;
  {
    std::lock_guard<std::mutex> g{impl_->mx};
    id = "ph" + std::to_string(impl_->files.size() + 1);
    impl_->files[id] = bytes;
  }
  json small{{"file_id", id + "s"}, {"file_unique_id", "us"},
             {"file_size", 10}, {"width", 90}, {"height", 90}};
  json big{{"file_id", id}, {"file_unique_id", "u" + id},
           {"file_size", bytes.size()}, {"width", 800}, {"height", 600}};
  json m{{"message_id", impl_->next_incoming++},
         {"from", user(from)},
         {"chat", {{"id", chat}, {"type", "private"}}},
         {"date", 1700000000},
         {"photo", json::array({small, big})},
         {"caption", caption}};
  return push_update({{"message", m}});
}

void fake_telegram::fail_polls(int n, const std::string& how) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->failing_polls = n;
  impl_->fail_how = how;
}

void fake_telegram::limit_sends(int n, int retry_after) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->limited_sends = n;
  impl_->retry_after = retry_after;
}

void fake_telegram::refuse_html_once() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->refuse_html = true;
}

std::vector<json> fake_telegram::sent() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->sent;
}

bool fake_telegram::wait_sent(size_t n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->sent.size() >= n; });
}

int fake_telegram::calls(const std::string& method) const {
  std::lock_guard<std::mutex> g{impl_->mx};
  auto it = impl_->calls.find(method);
  return it == impl_->calls.end() ? 0 : it->second;
}

size_t fake_telegram::pending() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->updates.size();
}

int64_t fake_telegram::last_offset() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->last_offset;
}

} // namespace nb::test
