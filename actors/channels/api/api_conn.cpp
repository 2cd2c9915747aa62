// One API connection, the reading side: a request's header and body under
// their limits and timeouts, then its dispatch to a route or a turn. The
// writing side (responses, SSE streams, closing) is api_conn_write.cpp.
// Runs on the server's io thread only.
#include "actors/channels/api/api_core.hpp"

#include <boost/beast/http/status.hpp>
#include <caf/all.hpp>

#include "actors/channels/api/api_turn.hpp"
#include "actors/common/utf8.hpp"

namespace nb::api::detail {

namespace {

std::string too_big(size_t limit) {
  return "request body exceeds " + std::to_string(limit / 1024) + " KiB";
}

bool is_route(std::string_view method, std::string_view path) {
  return (method == "GET" && (path == "/health" || path == "/v1/models"))
         || (method == "POST" && path == "/v1/chat/completions");
}

std::string path_of(std::string_view target) {
  return std::string{target.substr(0, target.find('?'))};
}

/// The end of a read that is no client error: the peer left or was slow.
bool peer_gone(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == net::error::eof
         || ec == beast::error::timeout || ec == net::error::operation_aborted
         || ec == net::error::connection_reset
         || ec == http::error::partial_message;
}

} // namespace

conn::conn(core& o, tcp::socket s, std::string c)
  : owner(o), stream(std::move(s)), client(std::move(c)),
    turn_deadline(o.ioc) {
  buf.max_size(owner.limits.max_header_bytes + read_slack);
}

conn::~conn() {
  if (turn)
    caf::anon_send_exit(turn, caf::exit_reason::user_shutdown);
}

void conn::start() {
  read_header();
}

void conn::read_header() {
  phase = phase_t::header;
  parser.emplace();
  parser->header_limit(static_cast<uint32_t>(owner.limits.max_header_bytes));
  parser->body_limit(owner.limits.max_body_bytes);
  // A slowloris client trickles its header: the deadline is absolute,
  // not renewed by each byte.
  stream.expires_after(first_request || buf.size() > 0
                         ? owner.limits.header_timeout
                         : owner.limits.idle_timeout);
  http::async_read_header(stream, buf, *parser,
                          [self = shared_from_this()](beast::error_code ec,
                                                      size_t) {
                            self->on_header(ec);
                          });
}

void conn::on_header(beast::error_code ec) {
  if (closed)
    return;
  if (ec) {
    if (ec == http::error::body_limit)
      respond_error({413, too_big(owner.limits.max_body_bytes)}, true);
    else if (ec == http::error::header_limit
             || ec == http::error::buffer_overflow)
      respond_error({431, "request header exceeds "
                            + std::to_string(owner.limits.max_header_bytes
                                             / 1024)
                            + " KiB"},
                    true);
    else if (peer_gone(ec))
      close();
    else
      respond_error({400, "malformed HTTP request: " + ec.message()}, true);
    return;
  }
  first_request = false;
  const auto& req = parser->get();
  http10 = req.version() < 11;
  if (auto err = check_header()) {
    // Without a body the connection stays usable; an unread body would be
    // read as the next request, so then it closes.
    respond_error(*err, !parser->is_done() || !req.keep_alive());
    return;
  }
  if (parser->is_done()) {
    dispatch();
    return;
  }
  auto expect = req[http::field::expect];
  if (beast::iequals(expect, "100-continue")) {
    phase = phase_t::body;
    stream.expires_after(owner.limits.write_timeout);
    static const std::string go_on = "HTTP/1.1 100 Continue\r\n\r\n";
    net::async_write(stream, net::buffer(go_on),
                     [self = shared_from_this()](beast::error_code e, size_t) {
                       if (e)
                         self->close();
                       else if (!self->closed)
                         self->read_body();
                     });
    return;
  }
  read_body();
}

std::optional<api_error> conn::check_header() const {
  const auto& req = parser->get();
  auto target = req.target();
  if (first_invalid_utf8({target.data(), target.size()}))
    return api_error{400, "invalid UTF-8 in the request path"};
  for (const auto& field : req) {
    auto value = field.value();
    if (first_invalid_utf8({value.data(), value.size()}))
      return api_error{400, "invalid UTF-8 in the header "
                              + std::string(field.name_string().data(),
                                            field.name_string().size())};
  }
  auto path = path_of({target.data(), target.size()});
  auto verb = req.method_string();
  auto method = std::string(verb.data(), verb.size());
  if (!owner.api_key.empty() && path != "/health") {
    auto header = req[http::field::authorization];
    if (header.empty())
      return api_error{401,
                       "Missing Authorization header. Use: Bearer <api_key>",
                       "authentication_error"};
    if (!bearer_matches({header.data(), header.size()}, owner.api_key))
      return api_error{401, "Invalid API key", "authentication_error"};
  }
  if (!is_route(method, path))
    return api_error{404, "unknown endpoint: " + method + ' ' + path};
  return std::nullopt;
}

void conn::read_body() {
  phase = phase_t::body;
  stream.expires_after(owner.limits.body_timeout);
  http::async_read(stream, buf, *parser,
                   [self = shared_from_this()](beast::error_code ec, size_t) {
                     self->on_body(ec);
                   });
}

void conn::on_body(beast::error_code ec) {
  if (closed)
    return;
  if (!ec) {
    dispatch();
  } else if (ec == http::error::body_limit) {
    // A chunked body is refused here, once the limit is passed; nothing
    // beyond the limit was kept.
    owner.log->warn("[api] refused a body over {} bytes from {}",
                    owner.limits.max_body_bytes, client);
    body_size = owner.limits.max_body_bytes;
    respond_error({413, too_big(owner.limits.max_body_bytes)}, true);
  } else if (peer_gone(ec)) {
    close();
  } else {
    respond_error({400, "malformed HTTP request: " + ec.message()}, true);
  }
}

void conn::dispatch() {
  phase = phase_t::answering;
  stream.expires_never();
  auto& req = parser->get();
  keep_alive = req.keep_alive();
  auto target = req.target();
  auto path = path_of({target.data(), target.size()});
  body_size = req.body().size();
  if (path == "/health") {
    respond(200, R"({"status":"ok"})", !keep_alive);
    return;
  }
  if (path == "/v1/models") {
    respond(200, models_body(listed_models(owner.agents)), !keep_alive);
    return;
  }
  if (owner.refusing) {
    // The gateway is draining: waiting requests get their answers, new
    // ones are sent back to try again once it is up.
    parser.reset();
    respond(503, error_body({503, "the gateway is shutting down; send this "
                                  "again once it is back", "server_error"}),
            true, "Retry-After: 5\r\n");
    return;
  }
  auto parsed = parse_completion_request(req.body());
  parser.reset(); // the body is not needed any more
  if (auto* err = std::get_if<api_error>(&parsed)) {
    owner.log->debug("rejected completion: {}", err->message);
    respond_error(*err, !keep_alive);
    return;
  }
  start_completion(std::get<completion_request>(std::move(parsed)));
}

void conn::start_completion(completion_request req) {
  auto id = ++exchange;
  chat_id = req.chat_id;
  auto model = req.model.empty() ? owner.model : req.model;
  std::weak_ptr<core> home = owner.shared_from_this();
  std::weak_ptr<conn> me = shared_from_this();
  auto msg = make_inbound(req);
  select_agent(owner.agents, req.model, msg);
  turn = start_turn(owner.sys, owner.router, std::move(msg),
                    [home, me, id](outbound_msg m) {
                      if (auto c = home.lock())
                        net::post(c->ioc, [me, id, m = std::move(m)]() mutable {
                          if (auto k = me.lock())
                            k->on_outbound(id, std::move(m));
                        });
                    });
  turn_deadline.expires_after(owner.timeout);
  turn_deadline.async_wait([me, id](beast::error_code ec) {
    if (auto k = me.lock(); k && !ec)
      k->on_turn_deadline(id);
  });
  if (req.stream) {
    sse.emplace(std::move(model));
    begin_stream();
  } else {
    collector.emplace(std::move(model));
  }
}

void conn::on_outbound(uint64_t id, outbound_msg m) {
  if (id != exchange || !turn || closed)
    return; // the answer is complete already, or timed out
  if (collector) {
    if (auto answer = collector->on_outbound(m)) {
      if (answer->status != 200)
        owner.log->warn("[api:{}] request failed: {} {}", chat_id,
                        answer->status, m.content);
      end_turn();
      respond(answer->status, std::move(answer->body), !keep_alive);
    }
    return;
  }
  bool finished = false;
  auto frames = sse->on_outbound(m, finished);
  if (finished) {
    end_turn();
    end_stream(frames);
  } else if (!frames.empty()) {
    stream_bytes(frames);
  }
}

void conn::on_turn_deadline(uint64_t id) {
  if (id == exchange && turn && !closed)
    fail_exchange(timed_out(owner.timeout));
}

void conn::fail_exchange(const api_error& err) {
  owner.log->warn("[api:{}] request failed: {} {}", chat_id, err.status,
                  err.message);
  end_turn();
  if (streaming)
    end_stream(sse_writer::failure(err));
  else
    respond_error(err, !keep_alive);
}

void conn::end_turn() {
  turn_deadline.cancel();
  if (turn) {
    caf::anon_send_exit(turn, caf::exit_reason::user_shutdown);
    turn = nullptr;
  }
}

} // namespace nb::api::detail
