#include "tests/security/raw_http.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace nb::test {

using clock = std::chrono::steady_clock;

raw_conn::raw_conn(uint16_t port, const std::string& source, int rcvbuf) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0)
    return;
  if (rcvbuf > 0)
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, source.c_str(), &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0
      || ::connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0)
    close();
}

raw_conn::~raw_conn() {
  close();
}

void raw_conn::close() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

bool raw_conn::send(std::string_view bytes) {
  while (!bytes.empty() && fd_ >= 0) {
    auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return fd_ >= 0;
}

raw_conn::wait_result raw_conn::receive(clock::time_point deadline) {
  if (fd_ < 0)
    return wait_result::closed;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
    deadline - clock::now());
  if (left.count() <= 0)
    return wait_result::timed_out;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(left.count())) <= 0)
    return wait_result::timed_out;
  char chunk[16384];
  auto n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0)
    return wait_result::closed;
  buf_.append(chunk, static_cast<size_t>(n));
  return wait_result::data;
}

bool raw_conn::fill(clock::time_point deadline) {
  return receive(deadline) == wait_result::data;
}

std::optional<raw_reply>
raw_conn::read_reply(std::chrono::milliseconds timeout) {
  auto deadline = clock::now() + timeout;
  size_t end;
  while ((end = buf_.find("\r\n\r\n")) == std::string::npos)
    if (!fill(deadline))
      return std::nullopt;
  raw_reply r;
  auto head = buf_.substr(0, end);
  buf_.erase(0, end + 4);
  auto line_end = head.find("\r\n");
  auto status_line = head.substr(0, line_end);
  if (status_line.size() < 12)
    return std::nullopt;
  r.status = std::atoi(status_line.c_str() + 9);
  size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    auto e = head.find("\r\n", pos);
    auto line = head.substr(pos, e == std::string::npos ? e : e - pos);
    pos = e == std::string::npos ? head.size() : e + 2;
    auto colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    auto name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    auto value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    r.headers[name] = value;
  }
  if (r.status == 100) // an interim answer: the real one follows
    return read_reply(std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - clock::now()));
  if (r.headers["transfer-encoding"] == "chunked") {
    while (true) {
      size_t crlf;
      while ((crlf = buf_.find("\r\n")) == std::string::npos)
        if (!fill(deadline))
          return std::nullopt;
      auto size = std::stoul(buf_.substr(0, crlf), nullptr, 16);
      while (buf_.size() < crlf + 2 + size + 2)
        if (!fill(deadline))
          return std::nullopt;
      r.body += buf_.substr(crlf + 2, size);
      buf_.erase(0, crlf + 2 + size + 2);
      if (size == 0)
        return r;
    }
  }
  auto length = r.headers.count("content-length")
                  ? std::stoul(r.headers["content-length"])
                  : 0;
  while (buf_.size() < length)
    if (!fill(deadline))
      return std::nullopt;
  r.body = buf_.substr(0, length);
  buf_.erase(0, length);
  return r;
}

bool raw_conn::closed_within(std::chrono::milliseconds timeout) {
  auto deadline = clock::now() + timeout;
  for (;;) {
    switch (receive(deadline)) {
    case wait_result::closed:
      return true;
    case wait_result::timed_out:
      return false;
    case wait_result::data:
      buf_.clear(); // what the server still sends is skipped
      break;
    }
  }
}

std::string completion_request(const std::string& body,
                               const std::string& extra_headers) {
  return "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
         "Content-Type: application/json\r\nContent-Length: "
         + std::to_string(body.size()) + "\r\n" + extra_headers + "\r\n"
         + body;
}

} // namespace nb::test
