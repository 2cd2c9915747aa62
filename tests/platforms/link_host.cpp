#include "tests/platforms/link_host.hpp"

#include <map>
#include <mutex>
#include <chrono>
#include <thread>

#include <httplib.h>

namespace nb::test {

struct link_host::impl {
  struct answer {
    int status = 200;
    std::string body, content_type, location;
  };
  httplib::Server server;
  std::thread thread;
  int port = 0;
  mutable std::mutex mx;
  std::map<std::string, answer> answers;
  std::map<std::string, int> hits;
};

link_host::link_host() : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  d->server.Get(".*", [d](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lk{d->mx};
    ++d->hits[req.path];
    auto it = d->answers.find(req.path);
    if (it == d->answers.end()) {
      res.status = 404;
      res.set_content("not found", "text/plain");
      return;
    }
    res.status = it->second.status;
    if (!it->second.location.empty())
      res.set_header("Location", it->second.location);
    res.set_content(it->second.body, it->second.content_type);
  });
  d->port = d->server.bind_to_any_port("127.0.0.1");
  d->thread = std::thread{[d] { d->server.listen_after_bind(); }};
  while (!d->server.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

link_host::~link_host() {
  impl_->server.stop();
  impl_->thread.join();
}

void link_host::serve(const std::string& path, const std::string& bytes,
                      const std::string& content_type) {
  std::lock_guard lk{impl_->mx};
  impl_->answers[path] = {200, bytes, content_type, ""};
}

void link_host::redirect(const std::string& path, const std::string& location) {
  std::lock_guard lk{impl_->mx};
  impl_->answers[path] = {302, "moved", "text/plain", location};
}

std::string link_host::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + path;
}

int link_host::hits(const std::string& path) const {
  std::lock_guard lk{impl_->mx};
  auto it = impl_->hits.find(path);
  return it == impl_->hits.end() ? 0 : it->second;
}

} // namespace nb::test
