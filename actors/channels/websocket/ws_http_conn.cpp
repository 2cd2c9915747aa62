// The plain HTTP side of the WebSocket server: WebUI files, the API routes
// and the upgrade to a WebSocket connection.
#include "actors/channels/websocket/ws_server_core.hpp"

namespace nb::ws::detail {

void http_conn::start() {
  parser.body_limit(64 * 1024);
  stream.expires_after(std::chrono::seconds(30));
  http::async_read(stream, buf, parser,
                   [self = shared_from_this()](beast::error_code ec, size_t) {
                     if (!ec)
                       self->on_request();
                   });
}

void http_conn::respond(http::status status, std::string body,
                        const char* type,
                        std::vector<std::pair<http::field, std::string>> extra) {
  auto res = std::make_shared<response>(status, 11);
  res->set(http::field::content_type, type);
  res->set(http::field::cache_control, "no-store");
  // The pages are not to be framed or sniffed into another type.
  res->set("X-Frame-Options", "DENY");
  res->set("X-Content-Type-Options", "nosniff");
  // "no-referrer" would make the login form post "Origin: null".
  res->set("Referrer-Policy", "same-origin");
  for (auto& [field, value] : extra)
    res->set(field, value);
  res->keep_alive(false);
  res->body() = std::move(body);
  res->prepare_payload();
  http::async_write(stream, *res,
                    [self = shared_from_this(), res](beast::error_code, size_t) {
                      beast::error_code ec;
                      self->stream.socket().shutdown(tcp::socket::shutdown_send,
                                                     ec);
                    });
}

namespace {

/// The nb_session value of a Cookie header ("" = none).
std::string session_cookie(std::string_view header) {
  static constexpr std::string_view name = "nb_session=";
  size_t at = 0;
  while (at < header.size()) {
    auto end = header.find(';', at);
    auto part = header.substr(at, end == std::string_view::npos
                                    ? std::string_view::npos : end - at);
    while (!part.empty() && part.front() == ' ')
      part.remove_prefix(1);
    if (part.starts_with(name))
      return std::string{part.substr(name.size())};
    if (end == std::string_view::npos)
      break;
    at = end + 1;
  }
  return {};
}

std::string json_detail(const std::string& text) {
  std::string out = "{\"detail\":\"";
  for (char c : text)
    if (c == '"' || c == '\\')
      out += std::string{"\\"} + c;
    else if (static_cast<unsigned char>(c) >= 0x20)
      out += c;
  return out + "\"}";
}

} // namespace

void http_conn::on_request() {
  const auto& req = parser.get();
  auto t = split_target(std::string{req.target()});
  request_facts f;
  f.method = std::string{req.method_string()};
  f.path = t.path;
  f.upgrade = websocket::is_upgrade(req);
  beast::error_code ec;
  auto peer = stream.socket().remote_endpoint(ec);
  f.peer_loopback = !ec && peer.address().is_loopback();
  f.host = std::string{req[http::field::host]};
  f.origin = std::string{req[http::field::origin]};
  auto auth = std::string{req[http::field::authorization]};
  if (auth.starts_with("Bearer "))
    f.bearer = auth.substr(7);
  if (f.upgrade && t.query.count("token"))
    f.query_token = t.query["token"];
  f.session = owner->has_session(
    session_cookie(std::string{req[http::field::cookie]}));
  auto v = check_request(f, owner->cfg.token);
  bool api = t.path.starts_with("/api/");
  auto refuse = [&](http::status status) {
    if (api || t.path == "/webui/bootstrap")
      respond(status, json_detail(v.detail), "application/json");
    else
      respond(status, v.detail, "text/plain");
  };
  switch (v.what) {
    case access::allow:
      break;
    case access::login:
      respond(http::status::see_other, "log in first", "text/plain",
              {{http::field::location, std::string{login_page}}});
      return;
    case access::unauthorized:
      refuse(http::status::unauthorized);
      return;
    case access::bad_host:
    case access::bad_origin:
      refuse(http::status::forbidden);
      return;
    case access::bad_method:
      refuse(http::status::method_not_allowed);
      return;
  }
  if (f.upgrade)
    upgrade_to_ws(t);
  else if (t.path == login_action)
    log_in(req.body());
  else if (t.path == "/webui/bootstrap")
    bootstrap(f.session);
  else if (api)
    call_api(t.path.substr(5), t.query);
  else
    serve_file(t.path);
}

void http_conn::log_in(const std::string& form) {
  auto fields = split_target("/?" + form).query;
  auto given = fields.count("token") ? fields["token"] : std::string{};
  const auto& token = owner->cfg.token;
  if (token.empty() || !same_secret(given, token)) {
    respond(http::status::see_other, "wrong token", "text/plain",
            {{http::field::location, std::string{login_page} + "?failed=1"}});
    return;
  }
  auto id = owner->new_session();
  respond(http::status::see_other, "logged in", "text/plain",
          {{http::field::location, "/"},
           {http::field::set_cookie,
            "nb_session=" + id
              + "; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000"}});
}

void http_conn::bootstrap(bool session) {
  // The page learns where the WebSocket is, never the token: a local page
  // without a login gets a login cookie (HttpOnly, out of the page's reach).
  std::vector<std::pair<http::field, std::string>> extra;
  if (!owner->cfg.token.empty() && !session)
    extra.emplace_back(http::field::set_cookie,
                       "nb_session=" + owner->new_session()
                         + "; Path=/; HttpOnly; SameSite=Strict");
  std::string agents;
  for (const auto& a : owner->cfg.agents) // ids: [a-z0-9_-] only
    agents += (agents.empty() ? "\"" : ",\"") + a + "\"";
  std::string body = "{\"ws_path\":\"" + owner->cfg.path
                     + "\",\"token_required\":"
                     + (owner->cfg.token.empty() ? "false" : "true")
                     + ",\"agents\":[" + agents + "]}";
  respond(http::status::ok, body, "application/json", std::move(extra));
}

void http_conn::call_api(const std::string& name,
                         std::map<std::string, std::string> query) {
  if (!owner->hooks.api) {
    respond(http::status::not_found, R"({"detail":"not found"})",
            "application/json");
    return;
  }
  api_call call;
  call.id = ++owner->api_seq;
  call.method = std::string{parser.get().method_string()};
  call.name = name;
  call.body = parser.get().body();
  call.query = std::move(query);
  owner->api_waiting.emplace(call.id, shared_from_this());
  owner->hooks.api(std::move(call));
}

void http_conn::serve_file(const std::string& path) {
  auto name = path == "/" ? std::string{"index.html"} : path.substr(1);
  const auto& dir = owner->cfg.webui_dir;
  if (dir.empty() || !plain_name(name)) {
    respond(http::status::not_found, "Not Found", "text/plain");
    return;
  }
  std::ifstream in{dir + "/" + name, std::ios::binary};
  if (!in) {
    respond(http::status::not_found, "Not Found", "text/plain");
    return;
  }
  std::ostringstream body;
  body << in.rdbuf();
  respond(http::status::ok, body.str(), content_type(name));
}

void http_conn::upgrade_to_ws(const target_parts& t) {
  const auto& cfg = owner->cfg;
  auto want = cfg.path.size() > 1 && cfg.path.back() == '/'
                ? cfg.path.substr(0, cfg.path.size() - 1) : cfg.path;
  if (t.path != want) {
    respond(http::status::not_found, "no WebSocket endpoint here",
            "text/plain");
    return;
  }
  auto get = [&](const char* key) {
    auto i = t.query.find(key);
    return i == t.query.end() ? std::string{} : i->second;
  };
  // The token, the cookie and the Origin were checked in on_request.
  auto client = get("client_id");
  if (client.empty())
    client = owner->random_id("anon-");
  if (!valid_client_id(client)) {
    respond(http::status::bad_request, "client_id must be 1-128 of "
                                       "[A-Za-z0-9_.:-]", "text/plain");
    return;
  }
  if (owner->hooks.allowed && !owner->hooks.allowed(client)) {
    respond(http::status::forbidden, "client not allowed", "text/plain");
    return;
  }
  auto chat = get("chat_id");
  if (!valid_chat_id(chat))
    chat = owner->random_id("web-");
  auto agent = get("agent");
  if (!agent.empty() && !valid_agent_request(agent)) {
    respond(http::status::bad_request, "agent must be 1-32 of [a-z0-9_-]",
            "text/plain");
    return;
  }
  stream.expires_never();
  auto conn = std::make_shared<ws_conn>(owner, stream.release_socket(),
                                        client, chat, agent);
  conn->start(parser.release());
}

} // namespace nb::ws::detail
