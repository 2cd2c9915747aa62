// ws_connection: the client side (connect), reading, writing and closing;
// the server side is in ws_connection_accept.cpp.
#include "actors/channels/kit/ws_connection.hpp"

#include "actors/channels/kit/ws_connection_impl.hpp"
#include "actors/channels/kit/ws_url.hpp"

namespace nb::chan {

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
