// Tools: HTTP requests for agent-driven traffic (web tools, MCP over HTTP).
// Each hop's URL passes the SSRF guard and the connection goes to the
// validated address only; redirects are followed by hand and re-checked;
// the body is capped while it streams in, and the whole exchange has a
// wall-clock limit.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "actors/tools/ssrf.hpp"

namespace nb {

/// One request.
struct http_request {
  std::string method = "GET";
  std::string url;
  std::map<std::string, std::string> headers;
  std::string body;
  std::string content_type; ///< for a body
  int max_redirects = 5;
  size_t max_bytes = 5u * 1024 * 1024; ///< body bytes kept (decompressed)
  int timeout_s = 30;                  ///< whole exchange
  int connect_timeout_s = 10;
  int read_timeout_s = 15; ///< silence allowed while waiting for bytes
  /// Called with each body piece as it arrives (after capping); return
  /// false to stop reading. Optional: the body is collected otherwise.
  std::function<bool(const char*, size_t)> on_data;
  /// Asked before a redirect is followed (the guard checks the next hop too):
  /// "" lets it go, else why not (the reply is then `blocked`). Optional.
  std::function<std::string(const parsed_url& from, const parsed_url& to)>
    redirect_rule;
};

/// What came back.
struct http_response {
  std::string error;      ///< transport or policy failure ("" = got a reply)
  bool blocked = false;   ///< the SSRF guard refused a hop
  int status = 0;
  std::string final_url;
  std::string content_type;
  std::multimap<std::string, std::string> headers; ///< lowercased names
  std::string body;
  bool truncated = false; ///< max_bytes reached, the rest was dropped
};

/// Sends `req` under `policy`. Never throws.
http_response http_send(const http_request& req, const ssrf_policy& policy);

} // namespace nb
