#include "config/proxy_url.hpp"

#include <charconv>

namespace nb {

std::optional<proxy_url> parse_proxy_url(std::string_view url) {
  proxy_url out;
  std::string_view rest;
  for (std::string_view scheme : {"http://", "socks5://", "socks5h://"})
    if (url.starts_with(scheme)) {
      out.socks = scheme != "http://";
      rest = url.substr(scheme.size());
    }
  if (rest.empty())
    return std::nullopt;
  if (out.socks)
    out.port = 1080;
  rest = rest.substr(0, rest.find('/'));
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    auto cred = rest.substr(0, at);
    auto colon = cred.find(':');
    out.user = std::string{cred.substr(0, colon)};
    if (colon != std::string_view::npos)
      out.password = std::string{cred.substr(colon + 1)};
    rest = rest.substr(at + 1);
  }
  // "[::1]:3128", "proxy:3128", "proxy".
  auto port_at = rest.rfind(':');
  if (port_at != std::string_view::npos
      && rest.find(']', port_at) == rest.npos) {
    auto digits = rest.substr(port_at + 1);
    auto [end, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), out.port);
    if (ec != std::errc{} || end != digits.data() + digits.size()
        || out.port <= 0 || out.port > 65535)
      return std::nullopt;
    rest = rest.substr(0, port_at);
  }
  if (rest.size() > 2 && rest.front() == '[' && rest.back() == ']')
    rest = rest.substr(1, rest.size() - 2);
  if (rest.empty())
    return std::nullopt;
  out.host = std::string{rest};
  return out;
}

} // namespace nb
