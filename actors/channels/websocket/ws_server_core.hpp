// Internal to the WebSocket server: the connection types and the core that
// owns them on the io thread (ws_server.cpp: WebSocket side and the server;
// ws_http_conn.cpp: plain HTTP requests and the upgrade).
#pragma once

#include "actors/channels/websocket/ws_server.hpp"

#include <algorithm>
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

#include <sys/random.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include "actors/channels/websocket/ws_auth.hpp"
#include "actors/channels/websocket/ws_http_util.hpp"
#include "actors/channels/websocket/ws_protocol.hpp"
#include "actors/common/heap.hpp"

namespace nb::ws {

// Shared by ws_server.cpp and ws_http_conn.cpp only.
namespace detail {

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

struct core;

/// One WebSocket connection; lives on the io thread only.
struct ws_conn : std::enable_shared_from_this<ws_conn> {
  ws_conn(std::shared_ptr<core> c, tcp::socket s, std::string client,
          std::string chat, std::string agent)
    : owner(std::move(c)), ws(std::move(s)), client(std::move(client)),
      chat(std::move(chat)), agent(std::move(agent)) {
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
  size_t queued_bytes = 0; ///< text bytes in outq
  bool writing = false;
  bool closed = false;
  std::string client;
  std::string chat; ///< the current chat of this connection
  std::string agent; ///< asked for with agent= ("" = the bindings')
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
  void log_in(const std::string& form);
  void bootstrap(bool session);
  void call_api(const std::string& name,
                std::map<std::string, std::string> query);
  void respond(http::status status, std::string body, const char* type,
               std::vector<std::pair<http::field, std::string>> extra = {});

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
  /// API calls handed to hooks.api and not answered yet (their requests
  /// wait for answer_api), by id.
  std::map<uint64_t, std::shared_ptr<http_conn>> api_waiting;
  uint64_t api_seq = 0;
  std::chrono::steady_clock::time_point last_trim{};
  /// Login cookies handed out (nb_session=<id>), oldest first; io thread.
  std::deque<std::string> sessions;

  bool has_session(const std::string& id) const {
    return !id.empty()
           && std::find(sessions.begin(), sessions.end(), id) != sessions.end();
  }

  /// A new login: 32 random bytes from the kernel, as hex.
  std::string new_session() {
    static const char hex[] = "0123456789abcdef";
    unsigned char bytes[32];
    size_t got = 0;
    while (got < sizeof bytes) {
      auto n = ::getrandom(bytes + got, sizeof bytes - got, 0);
      if (n > 0)
        got += static_cast<size_t>(n);
    }
    std::string id;
    for (auto b : bytes) {
      id += hex[b >> 4];
      id += hex[b & 15];
    }
    sessions.push_back(id);
    if (sessions.size() > 256) // bounded: the oldest login goes
      sessions.pop_front();
    return id;
  }

  /// Gives freed heap back to the system after a large message or a
  /// dropped queue (glibc keeps it otherwise); at most once a second.
  void trim_memory() {
    auto now = std::chrono::steady_clock::now();
    if (now - last_trim < std::chrono::seconds(1))
      return;
    last_trim = now;
    give_back_free_heap();
  }

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
    api_waiting.clear(); // their sockets close with them
    for (auto& c : std::set<std::shared_ptr<ws_conn>>{conns})
      beast::get_lowest_layer(c->ws).socket().close(ec);
  }
};

} // namespace detail

} // namespace nb::ws
