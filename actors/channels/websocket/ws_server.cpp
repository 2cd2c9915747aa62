// Boost.Beast, kept in this one file (a Beast TU is slow to compile). One
// io thread owns every socket and the connection table; blocking API work
// runs on one worker thread and posts its answer back.
#include "actors/channels/websocket/ws_server.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility> // Boost 1.74 asio uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include "actors/channels/websocket/ws_protocol.hpp"

namespace nb::ws {

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using request = http::request<http::string_body>;
using response = http::response<http::string_body>;

struct delivery {
  uint64_t id = 0;
  size_t pending = 0;   ///< connections still writing it
  size_t delivered = 0; ///< connections that wrote every frame
};

struct out_frame {
  std::string text;
  std::shared_ptr<delivery> done; ///< null: a control event
  bool last = false;              ///< the delivery's final frame
};

/// One thread running queued jobs in order (the API's blocking work).
class job_worker {
public:
  job_worker() : thread_([this] { run(); }) {}
  ~job_worker() { stop(); }

  void post(std::function<void()> job) {
    std::lock_guard<std::mutex> guard{mu_};
    if (!stopping_)
      jobs_.push_back(std::move(job));
    cv_.notify_one();
  }

  void stop() {
    {
      std::lock_guard<std::mutex> guard{mu_};
      stopping_ = true;
      jobs_.clear();
    }
    cv_.notify_one();
    if (thread_.joinable())
      thread_.join();
  }

private:
  void run() {
    std::unique_lock<std::mutex> lock{mu_};
    while (true) {
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_)
        return;
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

std::string url_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size()
               && std::isxdigit(static_cast<unsigned char>(s[i + 1]))
               && std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

struct target_parts {
  std::string path;
  std::map<std::string, std::string> query;
};

target_parts split_target(const std::string& target) {
  target_parts out;
  auto q = target.find('?');
  out.path = url_decode(target.substr(0, q));
  if (out.path.size() > 1 && out.path.back() == '/')
    out.path.pop_back();
  if (q == std::string::npos)
    return out;
  std::istringstream in{target.substr(q + 1)};
  std::string pair;
  while (std::getline(in, pair, '&')) {
    auto eq = pair.find('=');
    if (eq != std::string::npos)
      out.query[url_decode(pair.substr(0, eq))] = url_decode(pair.substr(eq + 1));
  }
  return out;
}

const char* content_type(const std::string& name) {
  auto ends = [&](const char* ext) { return name.ends_with(ext); };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "application/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".json")) return "application/json";
  if (ends(".png")) return "image/png";
  return "application/octet-stream";
}

/// A file name the WebUI may serve: no directories, no dot files.
bool plain_name(const std::string& name) {
  if (name.empty() || name[0] == '.')
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-'
        && c != '_')
      return false;
  return true;
}

struct core;

/// One WebSocket connection; lives on the io thread only.
struct ws_conn : std::enable_shared_from_this<ws_conn> {
  ws_conn(std::shared_ptr<core> c, tcp::socket s, std::string client,
          std::string chat)
    : owner(std::move(c)), ws(std::move(s)), client(std::move(client)),
      chat(std::move(chat)) {
    // nop
  }

  void start(request req);
  void read();
  void on_frame(const std::string& text);
  void push(std::string text, std::shared_ptr<delivery> done, bool last);
  void write_next();
  void close();

  std::shared_ptr<core> owner;
  websocket::stream<beast::tcp_stream> ws;
  beast::flat_buffer buf;
  request upgrade;
  std::deque<out_frame> outq;
  bool writing = false;
  bool closed = false;
  std::string client;
  std::string chat; ///< the current chat of this connection
  std::set<std::string> chats;
};

/// Reads one HTTP request: a WebSocket upgrade, a WebUI file or an API call.
struct http_conn : std::enable_shared_from_this<http_conn> {
  http_conn(std::shared_ptr<core> c, tcp::socket s)
    : owner(std::move(c)), stream(std::move(s)) {
    // nop
  }

  void start();
  void on_request();
  void serve_file(const std::string& path);
  void upgrade_to_ws(const target_parts& t);
  void respond(http::status status, std::string body, const char* type);

  std::shared_ptr<core> owner;
  beast::tcp_stream stream;
  beast::flat_buffer buf;
  http::request_parser<http::string_body> parser;
};

struct core : std::enable_shared_from_this<core> {
  server_config cfg;
  server_hooks hooks;
  net::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  std::set<std::shared_ptr<ws_conn>> conns;
  std::atomic<size_t> open{0};
  std::mt19937_64 rng{std::random_device{}()};
  job_worker worker;

  std::string random_id(const char* prefix) {
    static const char hex[] = "0123456789abcdef";
    std::string out = prefix;
    for (int i = 0; i < 12; ++i)
      out += hex[rng() % 16];
    return out;
  }

  void accept() {
    acceptor.async_accept([self = shared_from_this()](beast::error_code ec,
                                                      tcp::socket s) {
      if (ec == net::error::operation_aborted || !self->acceptor.is_open())
        return;
      if (!ec)
        std::make_shared<http_conn>(self, std::move(s))->start();
      self->accept();
    });
  }

  void settle(const std::shared_ptr<delivery>& d) {
    if (--d->pending == 0 && hooks.on_written)
      hooks.on_written(d->id, d->delivered);
  }

  void deliver(uint64_t id, const std::string& chat,
               std::vector<std::string>& frames) {
    auto d = std::make_shared<delivery>();
    d->id = id;
    std::vector<std::shared_ptr<ws_conn>> targets;
    for (const auto& c : conns)
      if (!c->closed && c->chats.count(chat) > 0)
        targets.push_back(c);
    d->pending = targets.size() + 1; // +1 until every push is queued
    for (auto& t : targets)
      for (size_t i = 0; i < frames.size(); ++i)
        t->push(frames[i], d, i + 1 == frames.size());
    settle(d);
  }

  void shutdown() {
    beast::error_code ec;
    acceptor.close(ec);
    for (auto& c : std::set<std::shared_ptr<ws_conn>>{conns})
      beast::get_lowest_layer(c->ws).socket().close(ec);
  }
};

void ws_conn::start(request req) {
  upgrade = std::move(req);
  ws.set_option(
    websocket::stream_base::timeout::suggested(beast::role_type::server));
  ws.read_message_max(owner->cfg.max_message_bytes);
  ws.async_accept(upgrade, [self = shared_from_this()](beast::error_code ec) {
    if (ec)
      return;
    self->owner->conns.insert(self);
    ++self->owner->open;
    self->chats.insert(self->chat);
    self->push(ready_event(self->chat, self->client), nullptr, false);
    self->read();
  });
}

void ws_conn::read() {
  ws.async_read(buf, [self = shared_from_this()](beast::error_code ec,
                                                 size_t) {
    if (ec) {
      self->close();
      return;
    }
    auto text = beast::buffers_to_string(self->buf.data());
    self->buf.consume(self->buf.size());
    self->on_frame(text);
    self->read();
  });
}

void ws_conn::on_frame(const std::string& text) {
  auto parsed = parse_client_frame(text);
  if (auto* err = std::get_if<std::string>(&parsed)) {
    push(error_event(*err), nullptr, false);
    return;
  }
  auto& cmd = std::get<client_command>(parsed);
  switch (cmd.kind) {
    case client_command::new_chat:
      chat = owner->random_id("web-");
      chats.insert(chat);
      push(attached_event(chat), nullptr, false);
      return;
    case client_command::attach:
      chat = cmd.chat_id;
      chats.insert(chat);
      push(attached_event(chat), nullptr, false);
      return;
    case client_command::message: {
      auto target = cmd.chat_id.empty() ? chat : cmd.chat_id;
      chats.insert(target); // a message attaches to its chat
      if (owner->hooks.on_message)
        owner->hooks.on_message(client, target, cmd.content);
      return;
    }
  }
}

void ws_conn::push(std::string text, std::shared_ptr<delivery> done,
                   bool last) {
  outq.push_back({std::move(text), std::move(done), last});
  if (!writing)
    write_next();
}

void ws_conn::write_next() {
  if (closed || outq.empty()) {
    writing = false;
    return;
  }
  writing = true;
  ws.text(true);
  ws.async_write(net::buffer(outq.front().text),
                 [self = shared_from_this()](beast::error_code ec, size_t) {
                   if (self->closed)
                     return; // close() already settled the queue
                   if (ec) {
                     self->close();
                     return;
                   }
                   auto f = std::move(self->outq.front());
                   self->outq.pop_front();
                   if (f.done && f.last) {
                     ++f.done->delivered;
                     self->owner->settle(f.done);
                   }
                   self->write_next();
                 });
}

void ws_conn::close() {
  if (closed)
    return;
  closed = true;
  auto self = shared_from_this();
  owner->conns.erase(self);
  --owner->open;
  // Deliveries still queued here count as not delivered on this connection.
  for (auto& f : outq)
    if (f.done && f.last)
      owner->settle(f.done);
  outq.clear();
  beast::error_code ec;
  beast::get_lowest_layer(ws).socket().close(ec);
}

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
    std::string body = "{\"token\":\"" + token + "\",\"ws_path\":\""
                       + owner->cfg.path + "\"}";
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
  stream.expires_never();
  auto conn = std::make_shared<ws_conn>(owner, stream.release_socket(),
                                        client, chat);
  conn->start(parser.release());
}

} // namespace

struct server::impl {
  std::shared_ptr<core> c = std::make_shared<core>();
  std::thread io;
  std::atomic<bool> ran_out{false};
  uint16_t port = 0;
  bool stopped = false;
};

server::server(server_config cfg, server_hooks hooks)
  : impl_(std::make_shared<impl>()) {
  auto& c = *impl_->c;
  c.cfg = std::move(cfg);
  c.hooks = std::move(hooks);
  auto where = c.cfg.host + ":" + std::to_string(c.cfg.port);
  try {
    auto addr = net::ip::make_address(c.cfg.host == "localhost" ? "127.0.0.1"
                                                                : c.cfg.host);
    tcp::endpoint ep{addr, c.cfg.port};
    c.acceptor.open(ep.protocol());
    c.acceptor.set_option(net::socket_base::reuse_address(true));
    c.acceptor.bind(ep);
    c.acceptor.listen(net::socket_base::max_listen_connections);
    impl_->port = c.acceptor.local_endpoint().port();
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot listen on " + where + ": " + e.what());
  }
  c.accept();
  impl_->io = std::thread([i = impl_] {
    i->c->ioc.run();
    i->ran_out = true;
  });
}

server::~server() {
  stop();
}

void server::stop() {
  if (impl_->stopped)
    return;
  impl_->stopped = true;
  impl_->c->worker.stop();
  net::post(impl_->c->ioc, [c = impl_->c] { c->shutdown(); });
  // Closed sockets finish their handlers and run() returns; a stuck
  // handler must not hold up the process.
  for (int i = 0; i < 40 && !impl_->ran_out; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  impl_->c->ioc.stop();
  if (impl_->io.joinable())
    impl_->io.join();
}

uint16_t server::port() const {
  return impl_->port;
}

void server::deliver(uint64_t id, std::string chat,
                     std::vector<std::string> frames) {
  net::post(impl_->c->ioc, [c = impl_->c, id, chat = std::move(chat),
                            frames = std::move(frames)]() mutable {
    c->deliver(id, chat, frames);
  });
}

size_t server::connections() const {
  return impl_->c->open.load();
}

} // namespace nb::ws
