#include "actors/common/socks_bridge.hpp"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"

namespace nb {

namespace {

// The request head a client sends the bridge is one line and a few headers.
constexpr size_t socks_head_limit = 16 * 1024;
constexpr int socks_io_timeout_ms = 30'000;

/// Small writes go out at once: a client writes a request's head and body
/// separately, and the relay must not hold the second back (Nagle).
void socks_no_delay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/// A socket closed when it goes out of scope.
struct socks_fd {
  int fd = -1;
  explicit socks_fd(int f = -1) : fd(f) {}
  socks_fd(const socks_fd&) = delete;
  socks_fd& operator=(const socks_fd&) = delete;
  ~socks_fd() {
    if (fd >= 0)
      ::close(fd);
  }
};

bool socks_wait(int fd, short events) {
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, socks_io_timeout_ms) == 1;
}

bool socks_send_all(int fd, const void* data, size_t n) {
  auto* p = static_cast<const char*>(data);
  while (n > 0) {
    if (!socks_wait(fd, POLLOUT))
      return false;
    auto w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) {
      if (w < 0 && errno == EINTR)
        continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool socks_recv_all(int fd, void* data, size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    if (!socks_wait(fd, POLLIN))
      return false;
    auto r = ::recv(fd, p, n, 0);
    if (r <= 0) {
      if (r < 0 && errno == EINTR)
        continue;
      return false;
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

/// What the client asked the bridge for.
struct socks_request {
  bool tunnel = false; ///< CONNECT (HTTPS): answer 200, then raw bytes
  std::string host;
  int port = 80;
  std::string path = "/"; ///< a plain request's, in origin form
};

/// "host:port", "[v6]:port"; `port` keeps its default when none is given.
bool socks_split_authority(std::string a, socks_request& r) {
  if (auto slash = a.find('/'); slash != std::string::npos)
    a = a.substr(0, slash);
  auto colon = a.rfind(':');
  if (colon != std::string::npos && a.find(']', colon) == std::string::npos) {
    try {
      r.port = std::stoi(a.substr(colon + 1));
    } catch (...) {
      return false;
    }
    a = a.substr(0, colon);
  }
  if (a.size() > 2 && a.front() == '[' && a.back() == ']')
    a = a.substr(1, a.size() - 2);
  r.host = a;
  return !a.empty() && a.size() <= 255 && r.port > 0 && r.port <= 65535;
}

/// The request line of `head`: CONNECT host:port, or an absolute-form
/// request (http://host[:port]/...), which goes to that host as it is.
bool socks_parse_head(const std::string& head, socks_request& r) {
  auto line = head.substr(0, head.find("\r\n"));
  auto sp1 = line.find(' ');
  auto sp2 = line.find(' ', sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos)
    return false;
  auto method = line.substr(0, sp1);
  auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (method == "CONNECT") {
    r.tunnel = true;
    r.port = 443;
    return socks_split_authority(target, r);
  }
  constexpr std::string_view http = "http://";
  if (target.compare(0, http.size(), http) != 0)
    return false;
  auto authority = target.substr(http.size());
  if (auto slash = authority.find('/'); slash != std::string::npos)
    r.path = authority.substr(slash);
  return socks_split_authority(authority, r);
}

/// A plain request as the server expects it from a client: the path in
/// origin form (not every server takes the absolute form) and one request
/// on the connection ("Connection: close"; the client opens the next one),
/// so no later request on it needs rewriting.
std::string socks_origin_form(const std::string& head, const socks_request& r) {
  auto line_end = head.find("\r\n");
  auto line = head.substr(0, line_end);
  auto sp1 = line.find(' ');
  auto sp2 = line.find(' ', sp1 + 1);
  std::string out =
    line.substr(0, sp1) + " " + r.path + line.substr(sp2) + "\r\n";
  auto body_at = head.find("\r\n\r\n");
  size_t at = line_end + 2;
  while (at < body_at + 2) {
    auto end = head.find("\r\n", at);
    auto h = head.substr(at, end - at);
    at = end + 2;
    auto name = h.substr(0, h.find(':'));
    for (auto& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name != "connection" && name != "proxy-connection"
        && name != "keep-alive" && !h.empty())
      out += h + "\r\n";
  }
  return out + "Connection: close\r\n\r\n" + head.substr(body_at + 4);
}

int socks_dial(const socks_target& proxy, std::string& error) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  auto port = std::to_string(proxy.port);
  if (int rc = ::getaddrinfo(proxy.host.c_str(), port.c_str(), &hints, &found);
      rc != 0) {
    error = "cannot resolve the SOCKS5 proxy " + proxy.host + ": "
            + ::gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (auto* a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && ::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      socks_no_delay(fd);
    } else if (fd >= 0) {
      error = std::string{"cannot connect to the SOCKS5 proxy "} + proxy.host
              + ":" + port + ": " + std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  return fd;
}

std::string socks_reply_text(unsigned char code) {
  static const char* texts[] = {"succeeded",
                                "general SOCKS server failure",
                                "connection not allowed by ruleset",
                                "network unreachable",
                                "host unreachable",
                                "connection refused",
                                "TTL expired",
                                "command not supported",
                                "address type not supported"};
  return code < 9 ? texts[code] : "error " + std::to_string(code);
}

/// Opens `r.host:r.port` through the proxy (RFC 1928, 1929); "" or why not.
std::string socks_open(int fd, const socks_target& proxy,
                       const socks_request& r) {
  const std::string where =
    "SOCKS5 proxy " + proxy.host + ":" + std::to_string(proxy.port);
  bool auth = !proxy.user.empty();
  unsigned char hello[] = {5, 1, static_cast<unsigned char>(auth ? 2 : 0)};
  unsigned char chosen[2];
  if (!socks_send_all(fd, hello, sizeof hello) || !socks_recv_all(fd, chosen, 2)
      || chosen[0] != 5)
    return "the " + where + " did not answer the SOCKS5 greeting";
  if (chosen[1] == 0xFF)
    return "the " + where
           + (auth ? " refused user/password authentication"
                   : " requires authentication (put user:password@ in the "
                     "proxy URL)");
  if (chosen[1] == 2) {
    if (proxy.user.size() > 255 || proxy.password.size() > 255)
      return "the proxy user or password is longer than SOCKS5 allows";
    std::string msg{char(1), char(proxy.user.size())};
    msg += proxy.user;
    msg += char(proxy.password.size());
    msg += proxy.password;
    unsigned char status[2];
    if (!socks_send_all(fd, msg.data(), msg.size())
        || !socks_recv_all(fd, status, 2))
      return "the " + where + " did not answer the login";
    if (status[1] != 0)
      return "the " + where + " refused the user and password";
  } else if (chosen[1] != 0) {
    return "the " + where
           + " chose an authentication method we do not "
             "speak";
  }
  std::string req{char(5), char(1), char(0), char(3), char(r.host.size())};
  req += r.host;
  req += char((r.port >> 8) & 0xFF);
  req += char(r.port & 0xFF);
  unsigned char head[4];
  if (!socks_send_all(fd, req.data(), req.size())
      || !socks_recv_all(fd, head, 4) || head[0] != 5)
    return "the " + where + " did not answer the CONNECT";
  if (head[1] != 0)
    return "the " + where + " could not reach " + r.host + ":"
           + std::to_string(r.port) + ": " + socks_reply_text(head[1]);
  size_t addr = head[3] == 1 ? 4 : head[3] == 4 ? 16 : 0;
  if (head[3] == 3) {
    unsigned char len;
    if (!socks_recv_all(fd, &len, 1))
      return "the " + where + " sent a short reply";
    addr = len;
  }
  std::string rest(addr + 2, '\0');
  if (!socks_recv_all(fd, rest.data(), rest.size()))
    return "the " + where + " sent a short reply";
  return "";
}

/// Copies bytes both ways until either side closes.
void socks_relay(int a, int b) {
  char buf[16384];
  while (true) {
    pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      int from = i == 0 ? a : b, to = i == 0 ? b : a;
      auto n = ::recv(from, buf, sizeof buf, 0);
      if (n <= 0 || !socks_send_all(to, buf, static_cast<size_t>(n)))
        return;
    }
  }
}

void socks_refuse(int client, const std::string& why) {
  auto text = "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n"
              "Connection: close\r\nContent-Length: "
              + std::to_string(why.size()) + "\r\n\r\n" + why;
  socks_send_all(client, text.data(), text.size());
}

void socks_serve(int client_fd, socks_target proxy) {
  name_thread("nb.socks");
  socks_fd client{client_fd};
  socks_no_delay(client.fd);
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (head.size() > socks_head_limit || !socks_wait(client.fd, POLLIN))
      return;
    auto n = ::recv(client.fd, buf, sizeof buf, 0);
    if (n <= 0)
      return;
    head.append(buf, static_cast<size_t>(n));
  }
  socks_request r;
  if (!socks_parse_head(head, r)) {
    socks_refuse(client.fd, "the SOCKS5 bridge takes CONNECT host:port or "
                            "an absolute http:// request");
    return;
  }
  std::string error;
  socks_fd upstream{socks_dial(proxy, error)};
  if (upstream.fd >= 0)
    error = socks_open(upstream.fd, proxy, r);
  if (!error.empty()) {
    log::get("http")->warn("{}", error);
    socks_refuse(client.fd, error);
    return;
  }
  auto body_at = head.find("\r\n\r\n") + 4;
  if (r.tunnel) {
    static constexpr std::string_view ok =
      "HTTP/1.1 200 Connection established\r\n\r\n";
    if (!socks_send_all(client.fd, ok.data(), ok.size())
        || !socks_send_all(upstream.fd, head.data() + body_at,
                           head.size() - body_at))
      return;
  } else if (auto plain = socks_origin_form(head, r);
             !socks_send_all(upstream.fd, plain.data(), plain.size())) {
    return;
  }
  socks_relay(client.fd, upstream.fd);
}

struct socks_listener {
  int fd = -1;
  uint16_t port = 0;
};

std::mutex socks_mu;
std::map<std::string, socks_listener> socks_listeners;

socks_listener socks_listen(const socks_target& proxy) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr)
      || ::listen(fd, 64)
      || ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len)) {
    auto why = std::string{std::strerror(errno)};
    if (fd >= 0)
      ::close(fd);
    throw std::runtime_error("cannot start the bridge to the SOCKS5 proxy "
                             + proxy.host + ": " + why);
  }
  socks_listener l{fd, ntohs(addr.sin_port)};
  std::thread{[fd, proxy] {
    name_thread("nb.socks");
    while (true) {
      int c = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) {
        if (errno == EINTR || errno == ECONNABORTED)
          continue;
        if (errno == EMFILE || errno == ENFILE) { // wait for a free one
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          continue;
        }
        return;
      }
      std::thread{socks_serve, c, proxy}.detach();
    }
  }}.detach();
  return l;
}

} // namespace

uint16_t socks_bridge_port(const socks_target& proxy) {
  auto key = proxy.host + "\n" + std::to_string(proxy.port) + "\n" + proxy.user
             + "\n" + proxy.password;
  std::lock_guard<std::mutex> lock{socks_mu};
  auto it = socks_listeners.find(key);
  if (it == socks_listeners.end())
    it = socks_listeners.emplace(key, socks_listen(proxy)).first;
  return it->second.port;
}

} // namespace nb
