// A proxy address from the config (providers.*.proxy, tools.web.proxy):
// "http://[user:password@]host[:port]" or
// "socks5://[user:password@]host[:port]" (socks5h:// too: either way the proxy
// resolves the names).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nb {

struct proxy_url {
  bool socks = false; ///< SOCKS5, else an HTTP proxy
  std::string host;
  int port = 80;    ///< SOCKS5: 1080 unless given
  std::string user; ///< "" = no authentication
  std::string password;
};

/// Parses `url`; nullopt when it is not a proxy URL we speak (the config
/// loader refuses those, so callers may treat nullopt as "no proxy").
std::optional<proxy_url> parse_proxy_url(std::string_view url);

} // namespace nb
