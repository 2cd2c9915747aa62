#include "tests/tools/http_servers.hpp"

#include <chrono>

namespace nb::test {

local_server::local_server(std::string h) : host(std::move(h)) {
  svr.set_pre_routing_handler([this](const httplib::Request&,
                                     httplib::Response&) {
    ++hits;
    return httplib::Server::HandlerResponse::Unhandled;
  });
}

local_server::~local_server() {
  svr.stop();
  if (thread_.joinable())
    thread_.join();
}

int local_server::start() {
  port = svr.bind_to_any_port(host.c_str());
  thread_ = std::thread([this] { svr.listen_after_bind(); });
  while (!svr.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return port;
}

std::string local_server::base() const {
  return "http://" + host + ":" + std::to_string(port);
}

} // namespace nb::test
