#include "actors/channels/mochat/mochat_poll.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include "actors/channels/kit/stop_flag.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::mochat {

using nlohmann::json;
using std::chrono::milliseconds;

namespace {

std::string poll_worker_key(const std::string& target, target_kind kind) {
  return (kind == target_kind::panel ? "panel:" : "session:") + target;
}

} // namespace

std::pair<std::string, json> poll_request(const mochat_config& cfg,
                                          const std::string& target,
                                          target_kind kind, int64_t cursor,
                                          bool at_once) {
  if (kind == target_kind::session)
    return {"/api/claw/sessions/watch",
            {{"sessionId", target},
             {"cursor", cursor},
             {"timeoutMs", at_once ? 0 : cfg.watch_timeout_ms},
             {"limit", cfg.watch_limit}}};
  return {"/api/claw/groups/panels/messages",
          {{"panelId", target},
           {"limit", std::clamp<int64_t>(cfg.watch_limit, 1, 100)}}};
}

struct poll_workers::worker {
  worker(const mochat_config& cfg, std::string id, target_kind k)
      : target(std::move(id)), kind(k), api(cfg) {}

  std::string target;
  target_kind kind;
  rest_api api; ///< used by the worker's thread only (abort from others)
  chan::stop_flag stop;
  std::atomic<bool> polling{false}, done{false};
  // Guarded by poll_workers::mx_.
  bool go = true;
  bool at_once = false;
  int64_t cursor = 0;
  milliseconds pause{0};
  std::thread thread;
};

poll_workers::poll_workers(const mochat_config& cfg) : cfg_(cfg) {}

poll_workers::~poll_workers() {
  stop();
}

void poll_workers::ensure(const std::string& target, target_kind kind,
                          int64_t cursor, bool at_once) {
  auto key = poll_worker_key(target, kind);
  if (workers_.count(key))
    return;
  auto w = std::make_unique<worker>(cfg_, target, kind);
  w->cursor = cursor;
  w->at_once = at_once;
  auto* raw = w.get();
  {
    std::lock_guard<std::mutex> g{mx_};
    workers_.emplace(key, std::move(w));
  }
  raw->thread = std::thread{[this, raw] { run(*raw); }};
}

void poll_workers::run(worker& w) {
  name_thread("mochat.poll");
  // The session's long poll may be held watchTimeoutMs; the read waits a
  // little longer than that for the answer.
  auto timeout = std::chrono::seconds(
    w.kind == target_kind::session ? cfg_.watch_timeout_ms / 1000 + 15 : 30);
  for (;;) {
    int64_t cursor = 0;
    bool at_once = false;
    milliseconds pause{0};
    {
      std::unique_lock<std::mutex> g{mx_};
      cv_.wait(g, [&] { return w.go || w.stop.stopping(); });
      if (w.stop.stopping())
        break;
      w.go = false;
      cursor = w.cursor;
      at_once = w.at_once;
      pause = w.pause;
    }
    if (pause.count() > 0 && !w.stop.sleep_for(pause))
      break;
    auto [path, body] = poll_request(cfg_, w.target, w.kind, cursor, at_once);
    w.polling = true;
    auto answer = w.api.post(path, body, timeout);
    w.polling = false;
    if (w.stop.stopping())
      break;
    {
      std::lock_guard<std::mutex> g{mx_};
      answers_.push_back({w.target, w.kind, std::move(answer)});
    }
    cv_.notify_all();
  }
  w.done = true;
}

std::optional<poll_answer> poll_workers::next(milliseconds timeout) {
  std::unique_lock<std::mutex> g{mx_};
  if (!cv_.wait_for(g, timeout, [this] { return !answers_.empty(); }))
    return std::nullopt;
  auto a = std::move(answers_.front());
  answers_.pop_front();
  return a;
}

void poll_workers::again(const std::string& target, target_kind kind,
                         int64_t cursor, bool at_once, milliseconds pause) {
  auto key = poll_worker_key(target, kind);
  {
    std::lock_guard<std::mutex> g{mx_};
    auto it = workers_.find(key);
    if (it == workers_.end())
      return;
    it->second->cursor = cursor;
    it->second->at_once = at_once;
    it->second->pause = pause;
    it->second->go = true;
  }
  cv_.notify_all();
}

void poll_workers::stop() {
  if (workers_.empty())
    return;
  for (auto& [key, w] : workers_)
    w->stop.request();
  {
    std::lock_guard<std::mutex> g{mx_}; // no wakeup lost between check and wait
  }
  cv_.notify_all();
  for (auto& [key, w] : workers_) {
    auto* raw = w.get();
    chan::stop_long_poll(
      raw->stop, raw->polling, raw->done, [raw] { raw->api.abort(); },
      raw->thread);
  }
  std::lock_guard<std::mutex> g{mx_};
  workers_.clear();
}

} // namespace nb::mochat
