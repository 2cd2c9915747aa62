// The OpenAI-compatible API (nanobot serve): POST /v1/chat/completions,
// GET /v1/models and GET /health on api.host:api.port.
#pragma once

#include <cstdint>
#include <memory>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// Each completion is a turn in session "api:<session_id>" ("api:default"
/// without one), sent to `router` from the request's own thread through a
/// scoped actor; turns of one session run in order in the router.
/// Errors use OpenAI's shape {"error":{"message","type","code"}}: 400 bad
/// body, 401 missing or wrong bearer key (when api.apiKey is set; /health
/// is open), 404 unknown path, 413 body over 1 MiB, 502 failed turn (its
/// error text is the message), 503 stopping, 504 past api.timeout_s.
/// Served on gateway.http_threads pool threads; every open stream holds one.
class api_server {
public:
  /// Binds api.host:api.port (0: any free port) and starts serving at once.
  /// Throws std::runtime_error with a clear message when the host is not
  /// loopback and api.apiKey is empty (nothing is bound then), or when it
  /// cannot listen.
  api_server(caf::actor_system& sys, router_actor router, const settings& cfg);
  ~api_server();

  /// Ends waiting requests (503) and open streams, then joins the threads.
  /// Idempotent; the destructor calls it.
  void stop();

  /// The bound port.
  uint16_t port() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb
