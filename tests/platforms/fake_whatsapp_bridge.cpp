#include "tests/platforms/fake_whatsapp_bridge.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "tests/platforms/ws_listener.hpp"

namespace nb::test {

using nlohmann::json;

struct fake_whatsapp_bridge::impl {
  mutable std::mutex mx;
  mutable std::condition_variable cv;
  std::deque<std::string> out;
  std::vector<std::string> tokens;
  std::vector<json> commands;
  int authenticated = 0;
  int failing = 0;
  std::string fail_text;
  bool drop_now = false;
  std::atomic<bool> closing{false};
  std::unique_ptr<ws_listener> socket;

  void serve(chan::ws_connection& c) {
    auto first = c.read(std::chrono::milliseconds(5000));
    auto auth = first ? json::parse(*first, nullptr, false) : json{};
    {
      std::lock_guard<std::mutex> g{mx};
      if (auth.is_object() && auth.value("token", json{}).is_string())
        tokens.push_back(auth["token"].get<std::string>());
    }
    if (!auth.is_object() || auth.value("type", "") != "auth"
        || auth.value("token", json{}) != token) {
      c.close(4003, "Invalid token");
      return;
    }
    {
      std::lock_guard<std::mutex> g{mx};
      ++authenticated;
    }
    cv.notify_all();
    std::unique_lock<std::mutex> g{mx};
    while (!closing.load() && c.is_open()) {
      std::deque<std::string> batch;
      batch.swap(out);
      bool drop = drop_now;
      drop_now = false;
      g.unlock();
      for (auto& t : batch)
        c.send(t);
      if (drop) {
        c.drop();
        g.lock();
        break;
      }
      auto msg = c.read(std::chrono::milliseconds(20));
      g.lock();
      if (!msg)
        continue;
      auto cmd = json::parse(*msg, nullptr, false);
      if (!cmd.is_object())
        continue;
      commands.push_back(cmd);
      json answer{{"type", "sent"}, {"to", cmd.value("to", "")}};
      if (failing > 0) {
        --failing;
        answer = {{"type", "error"}, {"error", fail_text}};
      }
      out.push_back(answer.dump());
      cv.notify_all();
    }
  }
};

fake_whatsapp_bridge::fake_whatsapp_bridge() : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  d->socket = std::make_unique<ws_listener>(
    [d](chan::ws_connection& c) { d->serve(c); });
}

fake_whatsapp_bridge::~fake_whatsapp_bridge() {
  impl_->closing = true;
  impl_->socket.reset();
}

std::string fake_whatsapp_bridge::url() const {
  return impl_->socket->url();
}

json fake_whatsapp_bridge::message(const std::string& id,
                                   const std::string& phone,
                                   const std::string& text,
                                   const std::string& group, bool mentioned,
                                   std::vector<std::string> media) {
  bool is_group = !group.empty();
  json m{{"type", "message"},
         {"id", id},
         {"sender", is_group ? group + "@g.us" : phone + "@s.whatsapp.net"},
         {"pn", is_group ? "" : phone + "@s.whatsapp.net"},
         {"content", text},
         {"timestamp", 1767225600},
         {"isGroup", is_group}};
  if (is_group)
    m["wasMentioned"] = mentioned;
  if (!media.empty())
    m["media"] = media;
  return m;
}

void fake_whatsapp_bridge::push(const json& frame) {
  push_raw(frame.dump());
}

void fake_whatsapp_bridge::push_raw(const std::string& text) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->out.push_back(text);
}

void fake_whatsapp_bridge::drop() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->drop_now = true;
}

void fake_whatsapp_bridge::fail_next(int n, const std::string& error) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->failing = n;
  impl_->fail_text = error;
}

int fake_whatsapp_bridge::authenticated() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->authenticated;
}

bool fake_whatsapp_bridge::wait_authenticated(int n,
                                              std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->authenticated >= n; });
}

std::vector<std::string> fake_whatsapp_bridge::tokens() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->tokens;
}

std::vector<json> fake_whatsapp_bridge::commands() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->commands;
}

bool fake_whatsapp_bridge::wait_commands(size_t n,
                                         std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->commands.size() >= n; });
}

} // namespace nb::test
