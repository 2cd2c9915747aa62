#include "tests/support/fake_socks5.hpp"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/support/tcp_test_server.hpp"

namespace nb::test {

namespace {

bool s5_read(int fd, void* data, size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    auto r = ::recv(fd, p, n, 0);
    if (r <= 0)
      return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool s5_write(int fd, const std::string& data) {
  return tcp_test_server::send_all(fd, data.data(), data.size());
}

int s5_connect_local(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

} // namespace

struct fake_socks5::impl {
  std::string user, password;
  int port = 0;
  mutable std::mutex mu;
  std::set<std::string> names;
  std::vector<request> seen;

  /// Serves the connections; made last, stopped first (~impl).
  std::unique_ptr<tcp_test_server> server;

  ~impl() { server.reset(); }

  /// One client: greeting, login, CONNECT, then the relay.
  void serve(int c, tcp_test_server& srv) {
    unsigned char hello[2];
    if (!s5_read(c, hello, 2) || hello[0] != 5)
      return;
    std::string methods(hello[1], '\0');
    if (!s5_read(c, methods.data(), methods.size()))
      return;
    unsigned char want = user.empty() ? 0 : 2;
    if (methods.find(char(want)) == std::string::npos) {
      s5_write(c, std::string{char(5), char(0xFF)});
      return;
    }
    s5_write(c, std::string{char(5), char(want)});
    request rq;
    if (want == 2) {
      unsigned char ver_len[2];
      if (!s5_read(c, ver_len, 2))
        return;
      std::string u(ver_len[1], '\0');
      unsigned char plen;
      if (!s5_read(c, u.data(), u.size()) || !s5_read(c, &plen, 1))
        return;
      std::string p(plen, '\0');
      if (!s5_read(c, p.data(), p.size()))
        return;
      bool good = u == user && p == password;
      s5_write(c, std::string{char(1), char(good ? 0 : 1)});
      if (!good)
        return;
      rq.user = u;
    }
    unsigned char head[4];
    if (!s5_read(c, head, 4) || head[1] != 1)
      return;
    if (head[3] == 3) {
      unsigned char len;
      if (!s5_read(c, &len, 1))
        return;
      rq.host.assign(len, '\0');
      if (!s5_read(c, rq.host.data(), len))
        return;
    } else if (head[3] == 1) {
      unsigned char a[4];
      if (!s5_read(c, a, 4))
        return;
      rq.host = std::to_string(a[0]) + "." + std::to_string(a[1]) + "."
                + std::to_string(a[2]) + "." + std::to_string(a[3]);
    } else {
      return;
    }
    unsigned char p[2];
    if (!s5_read(c, p, 2))
      return;
    rq.port = p[0] << 8 | p[1];
    bool known;
    {
      std::lock_guard lock{mu};
      seen.push_back(rq);
      known = names.count(rq.host) > 0;
    }
    int upstream = known ? s5_connect_local(rq.port) : -1;
    // Reply: succeeded (bound address 0.0.0.0:0), else host unreachable.
    std::string reply{
      char(5), char(upstream >= 0 ? 0 : 4), char(0), char(1), 0, 0, 0, 0, 0, 0};
    if (!s5_write(c, reply) || upstream < 0) {
      if (upstream >= 0)
        ::close(upstream);
      return;
    }
    srv.track(upstream, true);
    tcp_test_server::relay(c, upstream);
    srv.track(upstream, false);
    ::close(upstream);
  }
};

fake_socks5::fake_socks5(std::string user, std::string password)
    : impl_(std::make_unique<impl>()) {
  auto& d = *impl_;
  d.user = std::move(user);
  d.password = std::move(password);
  d.server = std::make_unique<tcp_test_server>(
    [&d](int c, tcp_test_server& srv) { d.serve(c, srv); });
  d.port = d.server->port();
}

fake_socks5::~fake_socks5() = default;

int fake_socks5::port() const {
  return impl_->port;
}

void fake_socks5::know(std::string name) {
  std::lock_guard lock{impl_->mu};
  impl_->names.insert(std::move(name));
}

std::vector<fake_socks5::request> fake_socks5::requests() const {
  std::lock_guard lock{impl_->mu};
  return impl_->seen;
}

} // namespace nb::test
