#include "actors/channels/mochat/mochat_poll.hpp"

#include <algorithm>

namespace nb::mochat {

using nlohmann::json;
using std::chrono::milliseconds;

namespace {

std::string poll_target_key(const std::string& target, target_kind kind) {
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

poller::poller(const mochat_config& cfg) : cfg_(cfg), http_(cfg.base_url) {}

void poller::ensure(const std::string& target, target_kind kind,
                    int64_t cursor, bool at_once) {
  auto key = poll_target_key(target, kind);
  if (targets_.count(key))
    return;
  polled_target t;
  t.id = target;
  t.kind = kind;
  t.cursor = cursor;
  t.at_once = at_once;
  t.due = steady::now();
  targets_.emplace(key, std::move(t));
}

void poller::launch_due(steady::time_point now) {
  for (auto& [key, t] : targets_) {
    if (!t.due || *t.due > now)
      continue;
    t.due.reset();
    auto [path, body] = poll_request(cfg_, t.id, t.kind, t.cursor, t.at_once);
    // The session's long poll may be held watchTimeoutMs; the read waits a
    // little longer than that for the answer.
    auto timeout = std::chrono::seconds(
      t.kind == target_kind::session ? cfg_.watch_timeout_ms / 1000 + 15 : 30);
    auto tag = next_tag_++;
    tags_[tag] = key;
    http_.start(tag, "POST", path, api_body(body), api_headers(cfg_), timeout);
  }
}

void poller::landed(uint64_t tag, chan::http_reply reply) {
  auto tag_it = tags_.find(tag);
  if (tag_it == tags_.end())
    return;
  auto it = targets_.find(tag_it->second);
  tags_.erase(tag_it);
  if (it == targets_.end())
    return;
  auto& t = it->second;
  if (reply.status == 429 && ++t.limited < 3) {
    auto wait = chan::rate_limit_wait_s(reply);
    if (wait <= 20) {
      t.due = steady::now()
              + milliseconds(static_cast<int64_t>(std::max(wait, 0.05) * 1000));
      return;
    }
  }
  t.limited = 0;
  answers_.push_back({t.id, t.kind, read_api_answer(reply)});
}

std::optional<poll_answer> poller::next(milliseconds timeout) {
  auto end = steady::now() + timeout;
  for (;;) {
    if (!answers_.empty()) {
      auto a = std::move(answers_.front());
      answers_.pop_front();
      return a;
    }
    auto now = steady::now();
    launch_due(now);
    if (now >= end)
      return std::nullopt;
    auto until = end;
    for (const auto& [key, t] : targets_)
      if (t.due)
        until = std::min(until, *t.due);
    bool woken = false;
    for (auto& l : http_.wait(until, woken))
      landed(l.tag, std::move(l.reply));
    if (woken && answers_.empty())
      return std::nullopt;
  }
}

void poller::again(const std::string& target, target_kind kind,
                   int64_t cursor, bool at_once, milliseconds pause) {
  auto it = targets_.find(poll_target_key(target, kind));
  if (it == targets_.end())
    return;
  it->second.cursor = cursor;
  it->second.at_once = at_once;
  it->second.due = steady::now() + pause;
}

void poller::stop() {
  http_.cancel_all();
  targets_.clear();
  tags_.clear();
}

} // namespace nb::mochat
