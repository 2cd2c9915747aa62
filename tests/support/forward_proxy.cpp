#include "tests/support/forward_proxy.hpp"

#include <atomic>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/support/tcp_test_server.hpp"

namespace nb::test {

namespace {

int connect_to(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res)
      != 0)
    return -1;
  int fd = -1;
  for (auto* a = res; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd >= 0 && ::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(res);
  if (fd >= 0) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return fd;
}

/// "host:port" (or "[v6]:port") into its parts; `port` keeps its default
/// when none is given.
void split_host_port(const std::string& text, std::string& host, int& port) {
  auto colon = text.rfind(':');
  if (colon != std::string::npos
      && text.find(']', colon) == std::string::npos) {
    host = text.substr(0, colon);
    port = std::stoi(text.substr(colon + 1));
  } else {
    host = text;
  }
  if (host.size() > 2 && host.front() == '[')
    host = host.substr(1, host.size() - 2);
}

} // namespace

struct forward_proxy::impl {
  int port = 0;
  std::string route_host; ///< "" = each target's own (set before use)
  int route_port = 0;
  mutable std::mutex mu;
  std::vector<request> seen;

  /// Serves the connections; made last, stopped first (~impl).
  std::unique_ptr<tcp_test_server> server;

  ~impl() { server.reset(); }

  void serve(int client, tcp_test_server& srv) {
    std::string head;
    char buf[4096];
    while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536) {
      auto r = ::recv(client, buf, sizeof buf, 0);
      if (r <= 0)
        return;
      head.append(buf, static_cast<size_t>(r));
    }
    auto end = head.find("\r\n\r\n");
    if (end == std::string::npos)
      return;
    auto rest = head.substr(end + 4);
    std::istringstream lines{head.substr(0, end)};
    std::string first;
    std::getline(lines, first);
    if (!first.empty() && first.back() == '\r')
      first.pop_back();
    request rq;
    std::string version;
    std::istringstream{first} >> rq.method >> rq.target >> version;
    std::vector<std::string> headers;
    for (std::string h; std::getline(lines, h);) {
      if (!h.empty() && h.back() == '\r')
        h.pop_back();
      auto lower = h.substr(0, h.find(':'));
      for (auto& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower == "proxy-authorization")
        rq.proxy_authorization = h.substr(h.find(':') + 2);
      else if (lower != "proxy-connection" && lower != "connection")
        headers.push_back(h);
    }
    {
      std::lock_guard lock{mu};
      seen.push_back(rq);
    }
    std::string host;
    int port = 80;
    std::string path = "/";
    if (rq.method == "CONNECT") {
      split_host_port(rq.target, host, port);
    } else {
      constexpr std::string_view scheme = "http://";
      if (rq.target.rfind(scheme, 0) != 0)
        return; // not a proxy request
      auto authority = rq.target.substr(scheme.size());
      auto slash = authority.find('/');
      if (slash != std::string::npos) {
        path = authority.substr(slash);
        authority.resize(slash);
      }
      split_host_port(authority, host, port);
    }
    {
      std::lock_guard lock{mu};
      if (!route_host.empty()) {
        host = route_host;
        port = route_port;
      }
    }
    int upstream = connect_to(host, port);
    if (upstream < 0) {
      std::string bad = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n"
                        "Connection: close\r\n\r\n";
      tcp_test_server::send_all(client, bad.data(), bad.size());
      return;
    }
    srv.track(upstream, true);
    if (rq.method == "CONNECT") {
      std::string ok = "HTTP/1.1 200 Connection established\r\n\r\n";
      if (tcp_test_server::send_all(client, ok.data(), ok.size())
          && tcp_test_server::send_all(upstream, rest.data(), rest.size()))
        tcp_test_server::relay(client, upstream);
    } else {
      // One request per connection: the upstream closes after answering.
      std::string out = rq.method + " " + path + " " + version + "\r\n";
      for (auto& h : headers)
        out += h + "\r\n";
      out += "Connection: close\r\n\r\n" + rest;
      if (tcp_test_server::send_all(upstream, out.data(), out.size()))
        tcp_test_server::relay(client, upstream);
    }
    srv.track(upstream, false);
    ::close(upstream);
  }
};

forward_proxy::forward_proxy() : impl_(std::make_unique<impl>()) {
  auto& d = *impl_;
  d.server = std::make_unique<tcp_test_server>(
    [&d](int c, tcp_test_server& srv) { d.serve(c, srv); });
  d.port = d.server->port();
}

forward_proxy::~forward_proxy() = default;

int forward_proxy::port() const {
  return impl_->port;
}

std::string forward_proxy::url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port);
}

void forward_proxy::route_all_to(std::string host, int port) {
  std::lock_guard lock{impl_->mu};
  impl_->route_host = std::move(host);
  impl_->route_port = port;
}

std::vector<forward_proxy::request> forward_proxy::requests() const {
  std::lock_guard lock{impl_->mu};
  return impl_->seen;
}

} // namespace nb::test
