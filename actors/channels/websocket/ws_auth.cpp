#include "actors/channels/websocket/ws_auth.hpp"

#include "actors/channels/websocket/ws_protocol.hpp"
#include "config/load.hpp"

namespace nb::ws {

namespace {

bool changes_state(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "DELETE";
}

std::string_view without_port(std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    auto close = host.find(']');
    return close == std::string_view::npos ? host : host.substr(0, close + 1);
  }
  auto colon = host.rfind(':');
  return colon == std::string_view::npos ? host : host.substr(0, colon);
}

bool same_origin(const std::string& origin, const std::string& host) {
  return !host.empty()
         && (origin == "http://" + host || origin == "https://" + host);
}

} // namespace

bool loopback_host_header(std::string_view host) {
  auto name = without_port(host);
  return !name.empty() && is_loopback_host(name);
}

verdict check_request(const request_facts& r, const std::string& token) {
  bool api = r.path.starts_with("/api/");
  bool login = r.path == login_action;
  bool bootstrap = r.path == "/webui/bootstrap";
  // Methods first: reading never changes anything, changing never reads.
  if (r.upgrade || bootstrap || (!api && !login)) {
    if (r.method != "GET")
      return {access::bad_method, "only GET here"};
  } else if (login) {
    if (r.method != "POST")
      return {access::bad_method, "only POST here"};
  } else if (r.method != "GET" && !changes_state(r.method)) {
    return {access::bad_method, "GET, POST, PUT or DELETE only"};
  }
  bool local = r.peer_loopback && loopback_host_header(r.host);
  bool bearer_ok = !token.empty() && same_secret(r.bearer, token);
  if (token.empty() && !local)
    return {access::bad_host,
            "this channel has no token, so it answers only to a loopback "
            "Host (http://127.0.0.1:<port>/); set channels.websocket.token "
            "to use another name"};
  if (changes_state(r.method)) {
    if (r.origin.empty() ? !bearer_ok : !same_origin(r.origin, r.host))
      return {access::bad_origin,
              r.origin.empty() ? "missing Origin header"
                               : "the Origin does not match this server"};
  }
  if (r.upgrade && !r.origin.empty() && !same_origin(r.origin, r.host))
    return {access::bad_origin, "the Origin does not match this server"};
  bool authed = token.empty() || r.session || bearer_ok
                || (r.upgrade && same_secret(r.query_token, token));
  if (authed || login || r.path == login_page || r.path == "/style.css")
    return {};
  if (r.upgrade)
    return {access::unauthorized, "missing or wrong token"};
  if (api)
    return {access::unauthorized, "bad token"};
  if (bootstrap)
    return local ? verdict{} : verdict{access::unauthorized, "log in first"};
  if (local)
    return {};
  if (r.path == "/" || r.path.ends_with(".html"))
    return {access::login, "log in first"};
  return {access::unauthorized, "log in first"};
}

} // namespace nb::ws
