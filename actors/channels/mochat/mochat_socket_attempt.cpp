#include "actors/channels/mochat/mochat_socket_attempt.hpp"

#include "actors/common/thread_name.hpp"

namespace nb::mochat {

socket_attempt::~socket_attempt() {
  if (thread_.joinable())
    thread_.join();
}

void socket_attempt::start(socketio_client& client, std::string url,
                           nlohmann::json auth,
                           std::chrono::milliseconds timeout,
                           std::function<void()> done) {
  collect();
  ended_ = false;
  thread_ = std::thread{[this, &client, url = std::move(url),
                         auth = std::move(auth), timeout,
                         done = std::move(done)] {
    name_thread("mochat.socket");
    outcome out;
    out.error = client.open(url, auth, timeout, out.refused);
    outcome_ = std::move(out);
    ended_ = true;
    if (done)
      done();
  }};
}

socket_attempt::outcome socket_attempt::collect() {
  if (thread_.joinable())
    thread_.join();
  return outcome_;
}

} // namespace nb::mochat
