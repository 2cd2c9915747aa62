// A WebSocket or HTTP URL taken apart: ws:// or wss:// (http:// or
// https://), host, port (80 and 443 by default) and the request target
// (path and query, "/" when empty).
#pragma once

#include <string>

namespace nb::chan {

struct ws_url {
  bool tls = false;
  std::string host, port, target;
};

/// Fills `out` from `url`; false for another scheme or no host.
bool parse_ws_url(const std::string& url, ws_url& out);

/// The same for http:// and https:// (`tls` for https).
bool parse_http_url(const std::string& url, ws_url& out);

} // namespace nb::chan
