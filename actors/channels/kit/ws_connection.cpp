#include "actors/channels/kit/ws_connection.hpp"

#include <atomic>
#include <deque>
#include <functional>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include "actors/channels/kit/ws_url.hpp"

namespace nb::chan {

namespace {

namespace net = boost::asio;
namespace ssl = net::ssl;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace http = beast::http;
using tcp = net::ip::tcp;
using steady = std::chrono::steady_clock;
using plain_ws = websocket::stream<beast::tcp_stream>;
using tls_ws = websocket::stream<beast::ssl_stream<beast::tcp_stream>>;

/// Completion of one operation; handlers outlive a timed-out wait, so they
/// write here and not into the caller's stack.
struct op_state {
  bool done = false;
  beast::error_code ec;
};

} // namespace

struct ws_connection::impl {
  net::io_context ioc;
  ssl::context ssl_ctx{ssl::context::tls_client};
  std::unique_ptr<plain_ws> plain;
  std::unique_ptr<tls_ws> tls;
  beast::flat_buffer rbuf;
  std::deque<std::string> inbox;
  std::string wbuf;
  bool open = false;
  bool reading = false;
  int code = 0;
  std::string reason;
  int handshake_status = 0;
  unsigned gen = 0; ///< handlers of an older connection do nothing
  std::atomic<bool> interrupted{false};
  std::atomic<bool> woken{false};

  impl() {
    ssl_ctx.set_default_verify_paths();
    ssl_ctx.set_verify_mode(ssl::verify_peer);
  }

  template <class F>
  void visit(F&& f) {
    if (tls)
      f(*tls);
    else if (plain)
      f(*plain);
  }

  /// Runs handlers until `done` or the deadline (or an interrupt).
  bool run_until(const std::function<bool()>& done, steady::time_point end) {
    ioc.restart();
    while (!done()) {
      if (interrupted.load())
        return false;
      if (ioc.run_one_until(end) == 0
          && (steady::now() >= end || ioc.stopped()))
        return done();
    }
    return true;
  }

  void mark_closed(const beast::error_code& ec) {
    open = false;
    if (ec == websocket::error::closed) {
      visit([&](auto& ws) {
        code = ws.reason().code;
        reason.assign(ws.reason().reason.data(), ws.reason().reason.size());
      });
    } else if (reason.empty()) {
      reason = ec.message();
    }
  }

  void arm_read() {
    if (!open || reading)
      return;
    reading = true;
    auto g = gen;
    visit([&](auto& ws) {
      ws.async_read(rbuf, [this, g](beast::error_code ec, size_t) {
        if (g != gen)
          return;
        reading = false;
        if (ec) {
          mark_closed(ec);
          return;
        }
        inbox.push_back(beast::buffers_to_string(rbuf.data()));
        rbuf.consume(rbuf.size());
        arm_read();
      });
    });
  }

  /// An operation did not finish: it still refers to the stream and to
  /// wbuf, so no other may start (a second write would overwrite the
  /// buffer the first is sending). The socket closes, which ends the
  /// operation with an error the next time handlers run (reset() runs them).
  void abandon(const std::string& why) {
    if (open && reason.empty())
      reason = why;
    open = false;
    beast::error_code ignored;
    visit([&](auto& ws) {
      beast::get_lowest_layer(ws).socket().close(ignored);
    });
  }

  /// Forgets the current connection; pending operations end first, since
  /// they refer to the stream.
  void reset() {
    ++gen;
    open = false;
    reading = false;
    beast::error_code ignored;
    visit([&](auto& ws) {
      beast::get_lowest_layer(ws).socket().close(ignored);
    });
    ioc.restart();
    ioc.run_for(std::chrono::milliseconds(200));
    plain.reset();
    tls.reset();
    // An operation that was still suspended inside the stream was posted
    // back when the stream went; run it to its end (it finds the stream
    // gone and aborts), or it and the stream's memory stay behind.
    ioc.restart();
    ioc.poll();
    rbuf.clear();
    inbox.clear();
    code = 0;
    reason.clear();
    handshake_status = 0;
  }

  /// Starts an operation through `start(handler)` and waits for it.
  template <class Start>
  std::string wait_op(Start start, steady::time_point end, const char* what) {
    auto st = std::make_shared<op_state>();
    auto g = gen;
    start([this, st, g](beast::error_code ec, auto&&...) {
      if (g != gen)
        return;
      st->done = true;
      st->ec = ec;
    });
    if (!run_until([&] { return st->done; }, end)) {
      std::string err = std::string{what} + ": "
                        + (interrupted.load() ? "interrupted" : "timed out");
      abandon(err);
      return err;
    }
    if (st->ec)
      return std::string{what} + ": " + st->ec.message();
    return "";
  }
};

ws_connection::ws_connection() : impl_(std::make_unique<impl>()) {
}

ws_connection::~ws_connection() {
  impl_->reset();
}

std::string ws_connection::connect(
  const std::string& url, std::chrono::seconds timeout,
  const std::map<std::string, std::string>& headers) {
  auto& d = *impl_;
  d.reset();
  ws_url u;
  if (!parse_ws_url(url, u))
    return "not a ws:// or wss:// URL: \"" + url + "\"";
  auto end = steady::now() + timeout;
  tcp::resolver resolver{d.ioc};
  auto results = std::make_shared<tcp::resolver::results_type>();
  auto err = d.wait_op(
    [&](auto h) {
      resolver.async_resolve(u.host, u.port,
                             [h, results](beast::error_code ec,
                                          tcp::resolver::results_type r) {
                               *results = r;
                               h(ec);
                             });
    },
    end, "resolve");
  if (!err.empty())
    return err;
  if (u.tls) {
    d.tls = std::make_unique<tls_ws>(d.ioc, d.ssl_ctx);
    SSL_set_tlsext_host_name(d.tls->next_layer().native_handle(),
                             u.host.c_str());
    d.tls->next_layer().set_verify_callback(
      ssl::host_name_verification(u.host));
  } else {
    d.plain = std::make_unique<plain_ws>(d.ioc);
  }
  d.visit([&](auto& ws) {
    err = d.wait_op(
      [&](auto h) {
        beast::get_lowest_layer(ws).async_connect(
          *results, [h](beast::error_code ec, const tcp::endpoint&) { h(ec); });
      },
      end, "connect");
  });
  if (err.empty() && d.tls)
    err = d.wait_op(
      [&](auto h) {
        d.tls->next_layer().async_handshake(ssl::stream_base::client, h);
      },
      end, "TLS handshake");
  if (err.empty())
    d.visit([&](auto& ws) {
      beast::get_lowest_layer(ws).expires_never();
      ws.set_option(websocket::stream_base::timeout::suggested(
        beast::role_type::client));
      ws.read_message_max(64 * 1024 * 1024);
      if (!headers.empty())
        ws.set_option(websocket::stream_base::decorator(
          [headers](websocket::request_type& req) {
            for (auto& [k, v] : headers)
              req.set(k, v);
          }));
      auto res = std::make_shared<websocket::response_type>();
      err = d.wait_op(
        [&](auto h) { ws.async_handshake(*res, u.host, u.target, h); }, end,
        "WebSocket handshake");
      d.handshake_status = static_cast<int>(res->result_int());
      if (!err.empty() && d.handshake_status != 0)
        err += " (HTTP " + std::to_string(d.handshake_status) + ")";
    });
  if (!err.empty()) {
    auto status = d.handshake_status;
    d.reset();
    d.handshake_status = status; // why it was refused outlives the reset
    return err;
  }
  d.open = true;
  d.arm_read();
  return "";
}

std::string ws_connection::accept(int fd, std::chrono::seconds timeout,
                                  const handshake_check& check) {
  auto& d = *impl_;
  d.reset();
  d.plain = std::make_unique<plain_ws>(d.ioc);
  beast::error_code ec;
  auto& sock = beast::get_lowest_layer(*d.plain);
  sock.socket().assign(tcp::v4(), fd, ec);
  if (ec)
    return "accept: " + ec.message();
  auto end = steady::now() + timeout;
  // The upgrade request is read here, so `check` can see its headers.
  auto req = std::make_shared<http::request<http::string_body>>();
  auto err = d.wait_op(
    [&](auto h) { http::async_read(sock, d.rbuf, *req, h); }, end,
    "WebSocket request");
  if (!err.empty()) {
    d.reset();
    return err;
  }
  d.rbuf.clear();
  if (check) {
    std::map<std::string, std::string> seen;
    for (auto& f : *req) {
      std::string name{f.name_string()};
      for (auto& c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      seen[name] = std::string{f.value()};
    }
    // The request target, under a name no header can have (Socket.IO's
    // servers read the protocol version from its query).
    seen[":target"] = std::string{req->target()};
    if (int refuse = check(seen); refuse != 0) {
      auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(refuse), req->version());
      res->set(http::field::content_type, "text/plain");
      res->body() = "refused";
      res->prepare_payload();
      d.wait_op([&](auto h) { http::async_write(sock, *res, h); }, end,
                "WebSocket refusal");
      d.reset();
      return "refused with HTTP " + std::to_string(refuse);
    }
  }
  err = d.wait_op([&](auto h) { d.plain->async_accept(*req, h); }, end,
                  "WebSocket accept");
  if (!err.empty()) {
    d.reset();
    return err;
  }
  d.open = true;
  d.arm_read();
  return "";
}

std::optional<std::string> ws_connection::read(std::chrono::milliseconds t) {
  auto& d = *impl_;
  bool woke = false;
  if (d.inbox.empty() && d.open)
    d.run_until(
      [&] {
        woke = woke || d.woken.exchange(false);
        return woke || !d.inbox.empty() || !d.open;
      },
      steady::now() + t);
  if (d.inbox.empty())
    return std::nullopt;
  auto out = std::move(d.inbox.front());
  d.inbox.pop_front();
  return out;
}

std::string ws_connection::send(const std::string& text) {
  return write(text, false);
}

std::string ws_connection::send_binary(const std::string& bytes) {
  return write(bytes, true);
}

std::string ws_connection::write(const std::string& data, bool binary) {
  auto& d = *impl_;
  if (!d.open)
    return "not connected" + (d.reason.empty() ? "" : " (" + d.reason + ")");
  d.wbuf = data;
  std::string err;
  d.visit([&](auto& ws) {
    ws.binary(binary);
    err = d.wait_op(
      [&](auto h) { ws.async_write(net::buffer(d.wbuf), h); },
      steady::now() + std::chrono::seconds(10), "send");
  });
  return err;
}

void ws_connection::close(int code, const std::string& reason) {
  auto& d = *impl_;
  if (d.open) {
    d.visit([&](auto& ws) {
      websocket::close_reason cr{static_cast<uint16_t>(code)};
      cr.reason = reason.substr(0, 120);
      d.wait_op([&](auto h) { ws.async_close(cr, h); },
                steady::now() + std::chrono::seconds(2), "close");
    });
  }
  d.open = false;
}

void ws_connection::drop() {
  auto& d = *impl_;
  beast::error_code ignored;
  d.visit([&](auto& ws) {
    auto& sock = beast::get_lowest_layer(ws).socket();
    sock.shutdown(tcp::socket::shutdown_both, ignored);
    sock.close(ignored);
  });
  d.open = false;
}

bool ws_connection::is_open() const {
  return impl_->open;
}

int ws_connection::handshake_status() const {
  return impl_->handshake_status;
}

int ws_connection::close_code() const {
  return impl_->code;
}

const std::string& ws_connection::close_reason() const {
  return impl_->reason;
}

void ws_connection::wake() {
  impl_->woken = true;
  // A handler to run ends the waiting run_one_until at once.
  net::post(impl_->ioc, [] {});
}

void ws_connection::interrupt() {
  impl_->interrupted = true;
  impl_->ioc.stop();
}

} // namespace nb::chan
