// The state behind ws_connection (private to ws_connection.cpp and
// ws_connection_accept.cpp): one io_context run on the caller's thread,
// the client or server stream, and the wait for each operation.
#pragma once

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

namespace nb::chan {

namespace ws_detail {

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

} // namespace ws_detail

using namespace ws_detail;

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

} // namespace nb::chan
