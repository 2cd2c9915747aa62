// The WebSocket channel's access rules (ws_auth.hpp) as a table: the
// browser tests (tests/webui/run_setup_test.sh) drive the same rules
// through a real gateway; here every branch is named once.
#include <doctest/doctest.h>

#include "actors/channels/websocket/ws_auth.hpp"

using namespace nb::ws;

namespace {

request_facts get(std::string path, bool loopback = true,
                  std::string host = "127.0.0.1:8765") {
  request_facts r;
  r.method = "GET";
  r.path = std::move(path);
  r.peer_loopback = loopback;
  r.host = std::move(host);
  return r;
}

request_facts remote(std::string path, std::string method = "GET") {
  auto r = get(std::move(path), false, "192.0.2.2:8765");
  r.method = std::move(method);
  return r;
}

nb::ws::access what(const request_facts& r, const std::string& token = "tok") {
  return check_request(r, token).what;
}

} // namespace

TEST_CASE("off loopback every page file API call and handshake needs the token") {
  CHECK(what(remote("/")) == access::login);
  CHECK(what(remote("/index.html")) == access::login);
  CHECK(what(remote("/app.js")) == access::unauthorized);
  CHECK(what(remote("/webui/bootstrap")) == access::unauthorized);
  CHECK(what(remote("/api/setup")) == access::unauthorized);
  auto ws = remote("/");
  ws.upgrade = true;
  CHECK(what(ws) == access::unauthorized);
  ws.query_token = "tok";
  CHECK(what(ws) == access::allow);
  CHECK(what(remote("/login.html")) == access::allow);
  CHECK(what(remote("/style.css")) == access::allow);
  auto page = remote("/app.js");
  page.session = true;
  CHECK(what(page) == access::allow);
  auto api = remote("/api/stats");
  api.bearer = "tok";
  CHECK(what(api) == access::allow);
  api.bearer = "tok2";
  CHECK(what(api) == access::unauthorized);
  // A foreign Host on a loopback peer is not "local" either.
  CHECK(what(get("/", true, "evil.example:8765")) == access::login);
}

TEST_CASE("on loopback pages need no login but the API still needs the token") {
  CHECK(what(get("/")) == access::allow);
  CHECK(what(get("/webui/bootstrap")) == access::allow);
  CHECK(what(get("/api/stats")) == access::unauthorized);
  CHECK(what(get("/api/stats", true, "localhost:1")) == access::unauthorized);
  CHECK(what(get("/api/stats"), "") == access::allow);
  CHECK(what(get("/", true, "[::1]:8765"), "") == access::allow);
}

TEST_CASE("without a token only a loopback Host name is answered") {
  CHECK(what(get("/api/setup", true, "rebound.example:8765"), "")
        == access::bad_host);
  CHECK(what(get("/", true, "rebound.example"), "") == access::bad_host);
}

TEST_CASE("state-changing calls need the Origin of this server or the bearer") {
  auto put = get("/api/setup");
  put.method = "PUT";
  CHECK(what(put, "") == access::bad_origin); // no Origin, no bearer
  put.origin = "http://127.0.0.1:8765";
  CHECK(what(put, "") == access::allow);
  put.origin = "http://evil.example";
  CHECK(what(put, "") == access::bad_origin);
  put.bearer = "tok";
  CHECK(what(put) == access::bad_origin); // the bearer does not excuse it
  put.origin.clear();
  CHECK(what(put) == access::allow); // a script: bearer, no Origin
  auto login = remote("/webui/login", "POST");
  login.origin = "null";
  CHECK(what(login) == access::bad_origin);
  login.origin = "http://192.0.2.2:8765";
  CHECK(what(login) == access::allow);
  auto ws = get("/");
  ws.upgrade = true;
  ws.origin = "http://evil.example";
  CHECK(what(ws, "") == access::bad_origin);
}

TEST_CASE("each route takes its methods only") {
  CHECK(what(get("/"), "") == access::allow);
  auto post_page = get("/index.html");
  post_page.method = "POST";
  CHECK(what(post_page, "") == access::bad_method);
  CHECK(what(remote("/webui/login")) == access::bad_method);
  auto patch = get("/api/setup");
  patch.method = "PATCH";
  CHECK(what(patch, "") == access::bad_method);
  auto del = get("/api/setup");
  del.method = "DELETE";
  del.origin = "http://127.0.0.1:8765";
  CHECK(what(del, "") == access::allow);
}
