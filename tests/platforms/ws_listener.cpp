#include "tests/platforms/ws_listener.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace nb::test {

ws_listener::ws_listener(handler serve,
                         chan::ws_connection::handshake_check check)
  : serve_(std::move(serve)), check_(std::move(check)) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int yes = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0
      || ::listen(fd_, 16) != 0)
    throw std::runtime_error("ws_listener: cannot listen on 127.0.0.1");
  socklen_t len = sizeof addr;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread{[this] { loop(); }};
}

ws_listener::~ws_listener() {
  stop_ = true;
  thread_.join();
  ::close(fd_);
}

std::string ws_listener::url() const {
  return "ws://127.0.0.1:" + std::to_string(port_);
}

void ws_listener::loop() {
  while (!stop_.load()) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0)
      continue;
    int c = ::accept(fd_, nullptr, nullptr);
    if (c < 0)
      continue;
    chan::ws_connection conn;
    if (conn.accept(c, std::chrono::seconds(5), check_).empty())
      serve_(conn);
  }
}

} // namespace nb::test
