// The distribution layer's settings and the two calls that use it: publish
// an actor on cluster.listen and fetch a peer's actor, over plain BASP/TCP or
// over TLS (caf_openssl) when cluster.tls is configured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/expected.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/openssl/remote_actor.hpp>

#include "config/cluster_config.hpp"

namespace nb {

/// host:port; IPv6 literals in brackets ("[::1]:7000").
struct endpoint {
  std::string host;
  uint16_t port = 0;
  std::string text() const;
};

/// Parses "host:port". On failure returns nullopt and sets `error` to a
/// sentence naming `what` (a config key) and the problem.
std::optional<endpoint> parse_endpoint(const std::string& text,
                                       const std::string& what,
                                       std::string& error);

/// Loads the io middleman (and the openssl manager when TLS is set) and sets
/// heartbeats and the connection timeout so a hung peer is noticed.
/// Call before the actor_system is built. Returns "" or an error sentence
/// (a TLS file that cannot be read, ...).
std::string prepare_network(caf::actor_system_config& cfg,
                            const cluster_settings& c);

/// True when cluster.tls asks for TLS between nodes.
inline bool uses_tls(const cluster_settings& c) {
  return !c.tls.cert.empty();
}

/// Publishes `whom` on `at` (port 0: any free port); returns the bound port.
template <class Handle>
caf::expected<uint16_t> publish_on(caf::actor_system& sys, const Handle& whom,
                                   const endpoint& at, bool tls) {
  // publish binds every interface when the address is null: always pass it.
  if (tls)
    return caf::openssl::publish(whom, at.port, at.host.c_str(), true);
  return sys.middleman().publish(whom, at.port, at.host.c_str(), true);
}

/// Connects to the actor published at `at`. Blocks: call it from a
/// detached actor or a non-CAF thread, never from the scheduler.
template <class Handle>
caf::expected<Handle> connect_to(caf::actor_system& sys, const endpoint& at,
                                 bool tls) {
  if (tls)
    return caf::openssl::remote_actor<Handle>(sys, at.host, at.port);
  return sys.middleman().remote_actor<Handle>(at.host, at.port);
}

} // namespace nb
