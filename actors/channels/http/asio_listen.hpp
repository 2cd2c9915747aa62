// The listening and stopping steps the Boost.Asio servers share (the
// WebSocket channel and the API): bind an acceptor, end an io thread.
// Header-only and Asio-only: include it from Beast TUs alone.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility> // Boost 1.74 asio uses std::exchange without it

#include <boost/asio.hpp>

namespace nb {

/// Opens, binds (SO_REUSEADDR) and listens on host:port ("localhost" and
/// "[::1]" accepted; port 0: any free port); returns the bound port.
/// Throws std::runtime_error "cannot listen on host:port: why".
inline uint16_t listen_on(boost::asio::ip::tcp::acceptor& acceptor,
                          const std::string& host, uint16_t port) {
  namespace net = boost::asio;
  try {
    auto h = host;
    if (h.size() > 2 && h.front() == '[' && h.back() == ']')
      h = h.substr(1, h.size() - 2);
    auto addr = net::ip::make_address(h == "localhost" ? "127.0.0.1" : h);
    net::ip::tcp::endpoint ep{addr, port};
    acceptor.open(ep.protocol());
    acceptor.set_option(net::socket_base::reuse_address(true));
    acceptor.bind(ep);
    acceptor.listen(net::socket_base::max_listen_connections);
    return acceptor.local_endpoint().port();
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot listen on " + host + ":"
                             + std::to_string(port) + ": " + e.what());
  }
}

/// After the connections were told to close: waits up to `grace` for the
/// io thread's run() to run out of work (`ran_out`), then stops the
/// io_context and joins the thread, so a client that does not read cannot
/// hold up the process.
inline void end_io_thread(boost::asio::io_context& ioc, std::thread& io,
                          const std::atomic<bool>& ran_out,
                          std::chrono::milliseconds grace
                          = std::chrono::seconds(2)) {
  auto until = std::chrono::steady_clock::now() + grace;
  while (!ran_out && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ioc.stop();
  if (io.joinable())
    io.join();
}

} // namespace nb
