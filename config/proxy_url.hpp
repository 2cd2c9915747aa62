// An HTTP proxy address from the config (providers.*.proxy,
// tools.web.proxy): "http://[user:password@]host[:port]".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nb {

struct proxy_url {
  std::string host;
  int port = 80;
  std::string user; ///< "" = no Proxy-Authorization
  std::string password;
};

/// Parses `url`; nullopt when it is not an http:// proxy URL (the config
/// loader refuses those, so callers may treat nullopt as "no proxy").
std::optional<proxy_url> parse_proxy_url(std::string_view url);

/// Sends an httplib client's requests through the proxy at `url` (nothing
/// changes for ""): an HTTPS target through a CONNECT tunnel, a plain one
/// as absolute-form requests.
template <class HttpClient>
void use_proxy(HttpClient& http, std::string_view url) {
  auto p = parse_proxy_url(url);
  if (!p)
    return;
  http.set_proxy(p->host, p->port);
  if (!p->user.empty())
    http.set_proxy_basic_auth(p->user, p->password);
}

} // namespace nb
