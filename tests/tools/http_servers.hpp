// Test support: small real HTTP servers on loopback addresses for the web
// tools: a canary that counts every request it gets, and a scripted site.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include <httplib.h>

namespace nb::test {

/// An httplib server on `host` (port 0), running on its own thread until
/// destroyed. Register handlers on `svr` before calling start().
struct local_server {
  explicit local_server(std::string host = "127.0.0.1");
  ~local_server();
  local_server(const local_server&) = delete;
  local_server& operator=(const local_server&) = delete;

  /// Binds and starts serving; returns the port.
  int start();
  /// "http://host:port".
  std::string base() const;

  httplib::Server svr;
  std::string host;
  int port = 0;
  std::atomic<int> hits{0}; ///< requests seen (every path)

private:
  std::thread thread_;
};

} // namespace nb::test
