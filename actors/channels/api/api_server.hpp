// The OpenAI-compatible API (nanobot serve): POST /v1/chat/completions,
// GET /v1/models and GET /health on api.host:api.port.
#pragma once

#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <memory>

#include <caf/actor_system.hpp>

#include "actors/channels/api/wire.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// What one client may cost the server. The defaults hold a slowloris
/// attack, an endless chunked body and a client that never reads.
struct api_limits {
  size_t max_body_bytes = api::max_body_bytes; ///< plain and chunked: 413
  size_t max_header_bytes = 16 * 1024;   ///< request line + headers: 431
  /// From a connection's first byte (or its accept) to a complete header.
  std::chrono::milliseconds header_timeout{std::chrono::seconds(10)};
  /// To read a whole body once the header is in.
  std::chrono::milliseconds body_timeout{std::chrono::seconds(30)};
  /// A kept-alive connection waiting for its next request.
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(30)};
  /// One write (a response, a batch of stream frames) must finish within.
  std::chrono::milliseconds write_timeout{std::chrono::seconds(30)};
  /// Open connections per client address; at the cap a new connection
  /// replaces that client's oldest one still waiting for a request, or is
  /// refused (503) when all of them are being answered.
  size_t max_connections_per_client = 256;
  /// Open connections in all, the same way.
  size_t max_connections = 8192;
  /// Stream frames waiting for a client that does not read; beyond it the
  /// client is dropped (the turn goes on and is saved).
  size_t max_stream_backlog_bytes = 4 << 20;
};

/// Each completion is a turn in session "api:<session_id>" ("api:default"
/// without one), handed to `router` by a small actor per request; turns of
/// one session run in order in the router.
/// Errors use OpenAI's shape {"error":{"message","type","code"}}: 400 bad
/// body or request (invalid UTF-8 anywhere is named: the header, the path
/// or the JSON field), 401 missing or wrong bearer key (when api.apiKey is
/// set; /health is open), 404 unknown path, 413 body over the limit, 431
/// header too large, 502 failed turn (its error text is the message), 503
/// stopping or over the connection cap, 504 past api.timeout_s.
/// Event-driven (Boost.Beast): one thread serves every connection, so
/// slow or idle clients cost memory, never a thread. HTTP/1.1 keep-alive;
/// pipelined requests are answered one after the other, in order.
/// Where the event loop runs: on a thread of its own from the start, or
/// first on the thread that calls serve_until_signal() (the gateway's main
/// thread, which would otherwise only wait for a signal: one thread fewer).
enum class api_loop { own_thread, caller_first };

class api_server {
public:
  /// Binds api.host:api.port (0: any free port) and starts serving at once
  /// (with api_loop::caller_first: once serve_until_signal() is called).
  /// Throws std::runtime_error with a clear message when the host is not
  /// loopback and api.apiKey is empty (nothing is bound then), or when it
  /// cannot listen.
  api_server(caf::actor_system& sys, router_actor router, const settings& cfg,
             api_limits limits = {}, api_loop loop = api_loop::own_thread);
  ~api_server();

  /// With api_loop::caller_first: serves on the calling thread until one
  /// of `signals` arrives (blocked in every thread, read here through a
  /// signalfd instead of sigwait), then moves the loop to a thread of its
  /// own, for the shutdown, and returns the signal's number.
  int serve_until_signal(const sigset_t& signals);

  /// New completions are answered 503 (with Retry-After) from now on;
  /// those already waiting keep waiting for their turns (a draining stop).
  void refuse_new();

  /// Stops accepting, answers waiting requests with 503, ends open streams
  /// with an error frame, lets those writes finish (2 s at most) and joins
  /// the io thread. Idempotent; the destructor calls it.
  void stop();

  /// The bound port.
  uint16_t port() const;

  /// Open connections now (any thread).
  size_t connections() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb
