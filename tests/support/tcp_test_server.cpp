#include "tests/support/tcp_test_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace nb::test {

tcp_test_server::tcp_test_server(
  std::function<void(int, tcp_test_server&)> serve)
    : serve_(std::move(serve)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::listen(listen_fd_, 64);
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] {
    for (;;) {
      int c = ::accept(listen_fd_, nullptr, nullptr);
      if (c < 0 || stopping_)
        break;
      int on = 1;
      ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      track(c, true);
      std::lock_guard lock{mu_};
      workers_.emplace_back([this, c] {
        serve_(c, *this);
        track(c, false);
        ::close(c);
      });
    }
  });
}

tcp_test_server::~tcp_test_server() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  std::vector<std::thread> workers;
  {
    std::lock_guard lock{mu_};
    for (int fd : open_fds_)
      ::shutdown(fd, SHUT_RDWR);
    workers.swap(workers_);
  }
  for (auto& w : workers)
    w.join();
}

void tcp_test_server::track(int fd, bool add) {
  std::lock_guard lock{mu_};
  if (add)
    open_fds_.insert(fd);
  else
    open_fds_.erase(fd);
}

bool tcp_test_server::send_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    auto w = ::send(fd, data, n, MSG_NOSIGNAL);
    if (w <= 0)
      return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

void tcp_test_server::relay(int a, int b) {
  char buf[16384];
  pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
  for (;;) {
    if (::poll(fds, 2, 30000) <= 0)
      return;
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      auto r = ::recv(fds[i].fd, buf, sizeof buf, 0);
      if (r <= 0 || !send_all(fds[1 - i].fd, buf, static_cast<size_t>(r)))
        return;
    }
  }
}

} // namespace nb::test
