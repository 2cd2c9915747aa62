// Who may use the WebSocket channel's HTTP side (issue 20, part 7): the
// channel token, the login cookie the login form or the local bootstrap
// sets, the Host and Origin checks. Pure: facts in, a verdict out.
#pragma once

#include <string>
#include <string_view>

namespace nb::ws {

/// What the server knows about one request.
struct request_facts {
  std::string method; ///< "GET", "POST", ...
  std::string path;   ///< decoded, without the query
  bool upgrade = false; ///< a WebSocket handshake
  bool peer_loopback = false;
  std::string host;        ///< the Host header
  std::string origin;      ///< the Origin header ("" = none)
  std::string bearer;      ///< Authorization: Bearer <this> ("" = none)
  std::string query_token; ///< ?token= (WebSocket handshakes only)
  bool session = false;    ///< its nb_session cookie names a live login
};

enum class access {
  allow,
  login,        ///< a page without a login: redirect to the login form
  unauthorized, ///< 401: the API, the handshake, other files
  bad_host,     ///< 403: a Host name that is not loopback (DNS rebinding)
  bad_origin,   ///< 403: a state-changing call from another origin
  bad_method,   ///< 405
};

struct verdict {
  access what = access::allow;
  std::string detail; ///< the reason, for the response body
};

/// The login form and what it needs: served to anyone.
inline constexpr std::string_view login_page = "/login.html";
inline constexpr std::string_view login_action = "/webui/login";

/// True for "localhost", "127.x.x.x" and "[::1]", with or without ":port".
bool loopback_host_header(std::string_view host);

/// The rules. With a channel token every /api/* call and handshake needs
/// it (bearer, ?token= on a handshake, or the login cookie), and off
/// loopback (the peer or the Host name) every page too; without one the
/// channel only listens on loopback and refuses a foreign Host name.
/// POST/PUT/DELETE need an Origin equal to the Host, or the bearer token
/// (scripts send no Origin); a handshake with a foreign Origin is refused.
/// Pages take GET only, /webui/login POST only.
verdict check_request(const request_facts& r, const std::string& token);

} // namespace nb::ws
