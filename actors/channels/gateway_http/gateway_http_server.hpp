// The gateway's HTTP server: GET /health, GET /stats (JSON), GET /metrics
// (Prometheus text) and GET /channels (channel states), on gateway.host:gateway.port. Unauthenticated, as in
// nanobot; a warning is logged when it listens beyond loopback.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include <caf/actor_system.hpp>

#include "config/settings.hpp"
#include "messages/channel.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// Serves on its own pool of 4 threads (at most gateway.http_threads) and
/// asks `stats` from those threads through a scoped actor; when the stats
/// actor fails or is slower than `stats_timeout`, /stats and /metrics answer
/// 503 {"error":{"message","type":"server_error","code":503}}.
class gateway_http_server {
public:
  /// Binds gateway.host:gateway.port (0: any free port) and starts serving
  /// at once; throws std::runtime_error naming the address when it cannot.
  gateway_http_server(caf::actor_system& sys, stats_actor stats,
                      const settings& cfg,
                      std::chrono::milliseconds stats_timeout
                      = std::chrono::seconds(2));
  ~gateway_http_server();

  /// Serves GET /channels from `channels` (until then it answers 503).
  void serve_channels(channel_manager_actor channels);

  /// Stops serving and joins the threads. Idempotent; the destructor calls it.
  void stop();

  /// The bound port.
  uint16_t port() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb
