// fake_qq's controls (host a file, push, drop, throttle) and what a test
// reads back (counts, the posts and uploads it received).
#include "tests/platforms/fake_qq_impl.hpp"

namespace nb::test {

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
