// Sending an HTTP client's requests through the configured proxy
// (providers.<name>.proxy, tools.web.proxy).
#pragma once

#include <string_view>

#include "actors/common/socks_bridge.hpp"
#include "config/proxy_url.hpp"

namespace nb {

/// Sends an httplib client's requests through the proxy at `url` (nothing
/// changes for ""): an HTTP proxy directly (HTTPS through a CONNECT
/// tunnel, plain HTTP as absolute-form requests), a SOCKS5 proxy through
/// the local bridge (socks_bridge.hpp). Throws when that bridge cannot
/// start: a request must never bypass the proxy the user set.
template <class HttpClient>
void use_proxy(HttpClient& http, std::string_view url) {
  auto p = parse_proxy_url(url);
  if (!p)
    return;
  if (p->socks) {
    http.set_proxy("127.0.0.1",
                   socks_bridge_port({p->host, p->port, p->user, p->password}));
    return;
  }
  http.set_proxy(p->host, p->port);
  if (!p->user.empty())
    http.set_proxy_basic_auth(p->user, p->password);
}

} // namespace nb
