// Several HTTP(S) requests in flight at once on the calling thread: one
// asio io_context that wait() runs. For an adapter that long-polls many
// targets (Mochat's sessions while its socket is down): with the blocking
// http_endpoint each poll would hold a thread of its own for as long as
// the server keeps it waiting.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/channels/kit/http_call.hpp"

namespace nb::chan {

class http_flights {
public:
  /// `base_url` as http_endpoint takes it ("https://host[:port][/prefix]").
  explicit http_flights(const std::string& base_url);
  ~http_flights();
  http_flights(const http_flights&) = delete;
  http_flights& operator=(const http_flights&) = delete;

  /// "" when the base URL is usable, else why not.
  const std::string& problem() const { return problem_; }

  /// Starts a request (its own connection, closed after the answer); its
  /// reply comes out of wait() under `tag`. `body` empty: no body, else
  /// sent as JSON. `timeout` bounds the connect (at most 10 s) and then
  /// the exchange, as http_endpoint::call's does.
  void start(uint64_t tag, const std::string& method, const std::string& path,
             const std::string& body,
             const std::map<std::string, std::string>& headers,
             std::chrono::seconds timeout);

  struct landed {
    uint64_t tag = 0;
    http_reply reply;
  };

  /// Runs the requests until at least one has its reply, wake() is called
  /// (`woken` set) or `until` comes; the replies that came.
  std::vector<landed> wait(std::chrono::steady_clock::time_point until,
                           bool& woken);

  /// Ends every request in flight; their replies never come.
  void cancel_all();

  size_t in_flight() const;

  /// From any thread: makes a waiting wait() return now (or the next one).
  void wake();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
  std::string problem_;
};

} // namespace nb::chan
