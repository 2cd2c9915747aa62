// A TCP server on 127.0.0.1 (a free port) for the scripted servers of the
// tests: each connection is served by `serve(fd, server)` on a thread of its
// own (the fd is closed when it returns); stopping shuts every connection
// down (and the sockets `serve` opened itself and tracked), then joins.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace nb::test {

class tcp_test_server {
public:
  explicit tcp_test_server(std::function<void(int, tcp_test_server&)> serve);
  ~tcp_test_server();
  tcp_test_server(const tcp_test_server&) = delete;
  tcp_test_server& operator=(const tcp_test_server&) = delete;

  int port() const { return port_; }

  /// A socket `serve` opened (an upstream): shut down too when the server
  /// stops. Untrack it before closing it.
  void track(int fd, bool add);

  /// Writes all `n` bytes; false when the peer is gone.
  static bool send_all(int fd, const char* data, size_t n);

  /// Copies bytes both ways until either side closes (or 30 s of silence).
  static void relay(int a, int b);

private:
  std::function<void(int, tcp_test_server&)> serve_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::mutex mu_;
  std::set<int> open_fds_;
  std::vector<std::thread> workers_;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
};

} // namespace nb::test
