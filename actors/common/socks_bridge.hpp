// SOCKS5 proxies for our HTTP clients (cpp-httplib speaks only HTTP proxies):
// a bridge on 127.0.0.1 that takes the client's proxy requests — CONNECT
// host:port for HTTPS, an absolute-form request for plain HTTP — and opens
// each connection through the SOCKS5 server (RFC 1928, user/password per
// RFC 1929), naming the host, so the proxy resolves it (socks5h semantics,
// as an HTTP proxy does: the proxy owns DNS). One bridge per proxy, started
// on first use by the thread that needs it (never a scheduler thread: the
// provider's and the tools' HTTP workers), kept for the process's life.
#pragma once

#include <cstdint>
#include <string>

namespace nb {

struct socks_target {
  std::string host;
  int port = 1080;
  std::string user; ///< "" = no authentication offered
  std::string password;
};

/// The local port of the bridge to `proxy` (started now if it is not
/// running yet). Throws std::runtime_error naming the problem when the
/// bridge cannot listen.
uint16_t socks_bridge_port(const socks_target& proxy);

} // namespace nb
