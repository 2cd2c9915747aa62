// WebSocket frames as the channel's server reads them: raw bytes after the
// upgrade go through Beast's frame decoder (masking, fragmentation, control
// frames, the message size limit) and each message through the channel's
// client-frame parser.
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include "actors/channels/websocket/ws_protocol.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace beast = boost::beast;
namespace websocket = beast::websocket;

NB_FUZZ_ENTRY(ws_frames) {
  auto bytes = nb::fuzz::text(data, size);
  // As a whole frame payload, straight to the protocol parser.
  (void) nb::ws::parse_client_frame(bytes);
  // As a byte stream after the handshake.
  boost::asio::io_context ioc;
  beast::test::stream client{ioc};
  beast::test::stream server{ioc};
  client.connect(server);
  websocket::stream<beast::test::stream&> ws{server};
  ws.set_option(websocket::stream_base::decorator([](auto&) {}));
  ws.read_message_max(64 * 1024);
  beast::error_code ec;
  client.write_some(boost::asio::buffer(
                      std::string{"GET / HTTP/1.1\r\nHost: x\r\n"
                                  "Upgrade: websocket\r\nConnection: upgrade\r\n"
                                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                  "Sec-WebSocket-Version: 13\r\n\r\n"}),
                    ec);
  ws.accept(ec);
  if (ec)
    return 0;
  client.write_some(boost::asio::buffer(bytes), ec);
  client.close();
  for (int i = 0; i < 64; ++i) {
    beast::flat_buffer buf;
    ws.read(buf, ec);
    if (ec)
      break;
    (void) nb::ws::parse_client_frame(beast::buffers_to_string(buf.data()));
  }
  return 0;
}
