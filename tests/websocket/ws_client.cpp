#include "tests/websocket/ws_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <utility>

namespace nb::test {

ws_client::~ws_client() {
  drop();
}

void ws_client::drop() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  pending_.clear();
}

int ws_client::connect(int port, const std::string& target) {
  drop();
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    drop();
    return 0;
  }
  std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:"
                    + std::to_string(port)
                    + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      "Sec-WebSocket-Version: 13\r\n\r\n";
  if (::send(fd_, req.data(), req.size(), MSG_NOSIGNAL) < 0)
    return 0;
  std::string head;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  char c = 0;
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (!read_exact(&c, 1, until))
      return 0;
    head += c;
  }
  auto sp = head.find(' ');
  int status = sp == std::string::npos ? 0 : std::atoi(head.c_str() + sp + 1);
  if (status != 101)
    drop();
  return status;
}

void ws_client::send_text(const std::string& text) {
  send_frame(0x1, text);
}

void ws_client::send_frame(unsigned char opcode, const std::string& text) {
  std::string frame;
  frame += static_cast<char>(0x80 | opcode); // FIN + opcode
  size_t n = text.size();
  if (n < 126) {
    frame += static_cast<char>(0x80 | n);
  } else if (n < 65536) {
    frame += static_cast<char>(0x80 | 126);
    frame += static_cast<char>(n >> 8);
    frame += static_cast<char>(n & 0xFF);
  } else {
    frame += static_cast<char>(0x80 | 127);
    for (int i = 7; i >= 0; --i)
      frame += static_cast<char>((static_cast<uint64_t>(n) >> (8 * i)) & 0xFF);
  }
  std::mt19937 rng{std::random_device{}()};
  char mask[4];
  for (auto& m : mask)
    m = static_cast<char>(rng());
  frame.append(mask, 4);
  for (size_t i = 0; i < n; ++i)
    frame += static_cast<char>(text[i] ^ mask[i % 4]);
  for (size_t sent = 0; sent < frame.size();) {
    auto r = ::send(fd_, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (r <= 0)
      return; // the server closed: read_text reports it
    sent += static_cast<size_t>(r);
  }
}

bool ws_client::read_exact(char* out, size_t n,
                           std::chrono::steady_clock::time_point until) {
  size_t got = 0;
  while (got < n) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      until - std::chrono::steady_clock::now());
    if (left.count() <= 0 || fd_ < 0)
      return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0)
      return false;
    auto r = ::recv(fd_, out + got, n - got, 0);
    if (r <= 0)
      return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

std::optional<std::string> ws_client::read_text(
  std::chrono::milliseconds timeout) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (fd_ >= 0) {
    unsigned char h[2];
    if (!read_exact(reinterpret_cast<char*>(h), 2, until))
      return std::nullopt;
    uint64_t len = h[1] & 0x7F;
    if (len == 126 || len == 127) {
      unsigned char ext[8];
      size_t k = len == 126 ? 2 : 8;
      if (!read_exact(reinterpret_cast<char*>(ext), k, until))
        return std::nullopt;
      len = 0;
      for (size_t i = 0; i < k; ++i)
        len = (len << 8) | ext[i];
    }
    std::string payload(len, '\0');
    if (len > 0 && !read_exact(payload.data(), len, until))
      return std::nullopt;
    int op = h[0] & 0x0F;
    bool fin = (h[0] & 0x80) != 0;
    // A long message may come in fragments: text, then continuations.
    if (op == 0x1 || (op == 0x0 && fragmented_)) {
      message_ += payload;
      fragmented_ = !fin;
      if (fin)
        return std::exchange(message_, {});
      continue;
    }
    if (op == 0x8) {
      if (payload.size() >= 2)
        close_code_ = (static_cast<unsigned char>(payload[0]) << 8)
                      | static_cast<unsigned char>(payload[1]);
      drop();
      return std::nullopt;
    }
    // ping (0x9): the server's keep-alive; pongs are not needed here.
  }
  return std::nullopt;
}

} // namespace nb::test
