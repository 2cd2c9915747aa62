// An httplib server running on its own threads: the elastic worker pool,
// the listen backlog fix, start and stop. Shared by the gateway and API
// front doors.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include <httplib.h>

#include "actors/channels/http/elastic_task_queue.hpp"

namespace nb {

/// True for "localhost", 127.0.0.0/8 and ::1 (also written "[::1]").
bool is_loopback_host(const std::string& host);

/// Owns one httplib::Server. Register routes on server() before start().
/// Handlers run on the server's pool threads, never on CAF's scheduler.
class http_listener {
public:
  explicit http_listener(std::string name);
  http_listener(const http_listener&) = delete;
  http_listener& operator=(const http_listener&) = delete;
  ~http_listener();

  httplib::Server& server() { return server_; }

  /// How long a pool thread may idle before it exits (default 30 s).
  /// Takes effect at the next start().
  void set_idle_timeout(std::chrono::milliseconds timeout) {
    idle_timeout_ = timeout;
  }

  /// Binds host:port (port 0: any free port) with a listen backlog of 1024
  /// and serves on at most `threads` pool threads, started on demand (each
  /// open connection or stream holds one; more connections wait). Returns
  /// the bound port; throws std::runtime_error naming the address when it
  /// cannot listen.
  uint16_t start(const std::string& host, int port, int threads);

  /// Stops accepting, ends open streams and joins every pool thread.
  /// Idempotent.
  void stop();

  /// The bound port (0 before start()).
  uint16_t port() const { return port_; }

  /// Pool threads alive now (0 before start() and after stop()).
  size_t pool_threads() const { return pool_ ? pool_->threads() : 0; }

private:
  std::string name_;
  httplib::Server server_;
  std::thread thread_;
  std::shared_ptr<elastic_task_queue> pool_;
  std::chrono::milliseconds idle_timeout_{std::chrono::seconds{30}};
  std::atomic<bool> loop_ended_{false};
  int listen_fd_ = -1;
  uint16_t port_ = 0;
};

} // namespace nb
