// A bare HTTP/1.1 client over a POSIX socket, for what a polite client
// library will not do: trickle a header, pipeline requests, send an endless
// chunked body, never read, connect from another loopback address.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace nb::test {

/// One parsed response.
struct raw_reply {
  int status = 0;
  std::map<std::string, std::string> headers; ///< names in lower case
  std::string body;                           ///< de-chunked
};

class raw_conn {
public:
  /// Connects to 127.0.0.1:`port` from `source` (any 127.x.y.z address:
  /// Linux routes all of 127/8 to the loopback device), with a receive
  /// buffer of `rcvbuf` bytes when non-zero.
  explicit raw_conn(uint16_t port, const std::string& source = "127.0.0.1",
                    int rcvbuf = 0);
  ~raw_conn();
  raw_conn(const raw_conn&) = delete;
  raw_conn& operator=(const raw_conn&) = delete;

  bool connected() const { return fd_ >= 0; }

  /// Sends all of `bytes`; false once the peer closed or reset.
  bool send(std::string_view bytes);

  /// Reads one response (the rest stays buffered for the next call);
  /// nullopt on timeout, close or a malformed answer.
  std::optional<raw_reply> read_reply(std::chrono::milliseconds timeout);

  /// True when the server closes (EOF or reset) within `timeout`; bytes it
  /// sends meanwhile are skipped.
  bool closed_within(std::chrono::milliseconds timeout);

  void close();

private:
  enum class wait_result { data, closed, timed_out };
  /// One read into buf_, waiting no later than `deadline`.
  wait_result receive(std::chrono::steady_clock::time_point deadline);
  /// Reads more into buf_; false on timeout, EOF or error.
  bool fill(std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  std::string buf_;
};

/// "POST /v1/chat/completions" with `body` and the given extra header
/// lines (each ending in "\r\n").
std::string completion_request(const std::string& body,
                               const std::string& extra_headers = "");

} // namespace nb::test
