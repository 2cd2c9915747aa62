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
                        const char* type) {
  auto res = std::make_shared<response>(status, 11);
  res->set(http::field::content_type, type);
  res->set(http::field::cache_control, "no-store");
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

void http_conn::on_request() {
  const auto& req = parser.get();
  auto t = split_target(std::string{req.target()});
  if (websocket::is_upgrade(req)) {
    upgrade_to_ws(t);
    return;
  }
  if (req.method() != http::verb::get) {
    respond(http::status::method_not_allowed, "only GET", "text/plain");
    return;
  }
  const auto& token = owner->cfg.token;
  if (t.path == "/webui/bootstrap") {
    // Hands the token to the page, but only to this machine.
    beast::error_code ec;
    auto peer = stream.socket().remote_endpoint(ec);
    if (ec || !peer.address().is_loopback()) {
      respond(http::status::forbidden, R"({"detail":"local clients only"})",
              "application/json");
      return;
    }
    std::string agents;
    for (const auto& a : owner->cfg.agents) // ids: [a-z0-9_-] only
      agents += (agents.empty() ? "\"" : ",\"") + a + "\"";
    std::string body = "{\"token\":\"" + token + "\",\"ws_path\":\""
                       + owner->cfg.path + "\",\"agents\":[" + agents + "]}";
    respond(http::status::ok, body, "application/json");
    return;
  }
  if (t.path.starts_with("/api/")) {
    std::string given = t.query.count("token") ? t.query["token"] : "";
    auto auth = std::string{req[http::field::authorization]};
    if (auth.starts_with("Bearer "))
      given = auth.substr(7);
    if (!token.empty() && !same_secret(given, token)) {
      respond(http::status::unauthorized, R"({"detail":"bad token"})",
              "application/json");
      return;
    }
    auto name = t.path.substr(5);
    auto self = shared_from_this();
    owner->worker.post([self, name] {
      std::optional<std::string> body;
      if (self->owner->hooks.api)
        body = self->owner->hooks.api(name);
      net::post(self->owner->ioc, [self, body] {
        if (body)
          self->respond(http::status::ok, *body, "application/json");
        else
          self->respond(http::status::not_found, R"({"detail":"not found"})",
                        "application/json");
      });
    });
    return;
  }
  serve_file(t.path);
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
  if (!cfg.token.empty() && !same_secret(get("token"), cfg.token)) {
    respond(http::status::unauthorized, "missing or wrong token",
            "text/plain");
    return;
  }
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
