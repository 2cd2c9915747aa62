// ws_connection's server side: takes an accepted socket through the
// WebSocket upgrade (the client side is in ws_connection.cpp).
#include <cctype>
#include <map>

#include "actors/channels/kit/ws_connection_impl.hpp"

namespace nb::chan {

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

} // namespace nb::chan
