#include "actors/channels/kit/ws_url.hpp"

namespace nb::chan {

namespace {

bool split_web_url(const std::string& url, const char* plain,
                   const char* secure, ws_url& out) {
  auto p = url.find("://");
  if (p == std::string::npos)
    return false;
  auto scheme = url.substr(0, p);
  if (scheme != plain && scheme != secure)
    return false;
  out.tls = scheme == secure;
  auto rest = url.substr(p + 3);
  auto slash = rest.find_first_of("/?");
  auto hostport = rest.substr(0, slash);
  out.target = slash == std::string::npos ? "/" : rest.substr(slash);
  if (out.target[0] == '?')
    out.target = "/" + out.target;
  auto colon = hostport.rfind(':');
  if (colon != std::string::npos && hostport.find(']') == std::string::npos) {
    out.host = hostport.substr(0, colon);
    out.port = hostport.substr(colon + 1);
  } else {
    out.host = hostport;
    out.port = out.tls ? "443" : "80";
  }
  return !out.host.empty();
}

} // namespace

bool parse_ws_url(const std::string& url, ws_url& out) {
  return split_web_url(url, "ws", "wss", out);
}

bool parse_http_url(const std::string& url, ws_url& out) {
  return split_web_url(url, "http", "https", out);
}

} // namespace nb::chan
