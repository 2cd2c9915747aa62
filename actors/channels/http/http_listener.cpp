#include "actors/channels/http/http_listener.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "actors/common/thread_name.hpp"

namespace nb {

namespace {

/// httplib deletes the queue it gets; this lends it ours, which the
/// listener keeps so pool_threads() stays answerable.
class lent_queue : public httplib::TaskQueue {
public:
  explicit lent_queue(std::shared_ptr<elastic_task_queue> pool)
    : pool_(std::move(pool)) {
    // nop
  }

  void enqueue(std::function<void()> fn) override {
    pool_->enqueue(std::move(fn));
  }

  void shutdown() override { pool_->shutdown(); }

private:
  std::shared_ptr<elastic_task_queue> pool_;
};

} // namespace

bool is_loopback_host(const std::string& raw) {
  auto host = raw;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host == "localhost")
    return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1)
    return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1)
    return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

http_listener::http_listener(std::string name) : name_(std::move(name)) {
  // nop
}

http_listener::~http_listener() {
  stop();
}

uint16_t http_listener::start(const std::string& host, int port,
                              int threads) {
  auto where = name_ + ": cannot listen on " + host + ':'
               + std::to_string(port);
  if (thread_.joinable())
    throw std::runtime_error(where + " (already started)");
  // No minimum: an idle front door keeps no pool thread at all.
  pool_ = std::make_shared<elastic_task_queue>(
    static_cast<size_t>(std::max(threads, 1)), 0, idle_timeout_);
  server_.new_task_queue = [pool = pool_] { return new lent_queue(pool); };
  // Replies go out as soon as they are written, not after the peer's
  // delayed ACK: streamed deltas and short answers are latency bound.
  server_.set_tcp_nodelay(true);
  // Replacing the default socket options means setting SO_REUSEADDR here.
  server_.set_socket_options([this](socket_t fd) {
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_fd_ = fd;
  });
  int bound = -1;
  errno = 0;
  if (port == 0)
    bound = server_.bind_to_any_port(host);
  else if (server_.bind_to_port(host, port))
    bound = port;
  if (bound <= 0) {
    auto why = errno != 0 ? std::string{" ("} + std::strerror(errno) + ')'
                          : std::string{};
    throw std::runtime_error(where + why);
  }
  // httplib listens with a backlog of 5; connection bursts then lose SYNs
  // and wait a full second for the retransmit. Listening again raises it.
  ::listen(listen_fd_, 1024);
  port_ = static_cast<uint16_t>(bound);
  loop_ended_ = false;
  thread_ = std::thread{[this] {
    name_thread("nb.http");
    server_.listen_after_bind();
    loop_ended_ = true;
  }};
  // stop() before the loop runs would be lost (0.11 has no
  // wait_until_ready), so start() returns only once it serves.
  while (!server_.is_running() && !loop_ended_)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!server_.is_running()) {
    thread_.join();
    port_ = 0;
    throw std::runtime_error(where + " (the accept loop ended at once)");
  }
  return port_;
}

void http_listener::stop() {
  if (!thread_.joinable())
    return;
  server_.stop();
  thread_.join();
}

} // namespace nb
