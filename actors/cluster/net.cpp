#include "actors/cluster/net.hpp"

#include <chrono>
#include <fstream>

#include <caf/openssl/manager.hpp>

namespace nb {

std::string endpoint::text() const {
  auto h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

std::optional<endpoint> parse_endpoint(const std::string& text,
                                       const std::string& what,
                                       std::string& error) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    error = what + ": expected host:port, found \"" + text + "\"";
    return std::nullopt;
  }
  endpoint out;
  out.host = text.substr(0, colon);
  if (out.host.size() > 2 && out.host.front() == '[' && out.host.back() == ']')
    out.host = out.host.substr(1, out.host.size() - 2);
  auto digits = text.substr(colon + 1);
  if (digits.size() > 5
      || digits.find_first_not_of("0123456789") != std::string::npos
      || std::stoi(digits) > 65535) {
    error = what + ": the port in \"" + text + "\" is not a number 0-65535";
    return std::nullopt;
  }
  out.port = static_cast<uint16_t>(std::stoi(digits));
  return out;
}

namespace {

std::string unreadable(const std::string& key, const std::string& path) {
  std::ifstream in{path};
  if (in.good())
    return "";
  return key + ": cannot read \"" + path + "\"";
}

} // namespace

std::string prepare_network(caf::actor_system_config& cfg,
                            const cluster_settings& c) {
  cfg.load<caf::io::middleman>();
  using ms = std::chrono::milliseconds;
  cfg.set("middleman.heartbeat-interval",
          caf::timespan{ms{c.heartbeat_ms}});
  cfg.set("middleman.connection-timeout",
          caf::timespan{ms{c.connection_timeout_ms}});
  // Agents reach a tools node through the gateway (BASP's indirect route),
  // with TLS or without. CAF 0.17's automatic direct connections lost an
  // agent's first requests to the tools node now and then: its turns then
  // waited out the 30 s tool-list timeout one after another (CI's cluster
  // case ran into its 600 s limit so).
  if (!uses_tls(c))
    return "";
  for (auto [key, path] : {std::pair{"cluster.tls.cert", c.tls.cert},
                           std::pair{"cluster.tls.key", c.tls.key},
                           std::pair{"cluster.tls.ca", c.tls.ca}})
    if (!path.empty())
      if (auto e = unreadable(key, path); !e.empty())
        return e;
  cfg.load<caf::openssl::manager>();
  cfg.set("openssl.certificate", c.tls.cert);
  cfg.set("openssl.key", c.tls.key);
  if (!c.tls.ca.empty())
    cfg.set("openssl.cafile", c.tls.ca);
  return "";
}

} // namespace nb
