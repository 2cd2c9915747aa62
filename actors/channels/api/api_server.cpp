// The API server: binds, runs the io thread, admits connections under the
// caps and stops gracefully. The requests themselves: api_conn.cpp.
#include "actors/channels/api/api_server.hpp"

#include <stdexcept>
#include <thread>

#include <sys/signalfd.h>
#include <unistd.h>

#include "actors/channels/api/api_core.hpp"
#include "actors/channels/http/asio_listen.hpp"
#include "actors/channels/http/http_listener.hpp"
#include "actors/common/heap.hpp"
#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"

namespace nb {

using namespace nb::api::detail;

namespace api::detail {

core::core(caf::actor_system& s, router_actor r, const settings& cfg,
           api_limits l)
  : sys(s), router(std::move(r)), limits(l), api_key(cfg.api.api_key),
    model(cfg.agent.model), agents(make_api_agents(cfg)),
    timeout(std::chrono::seconds(std::max(cfg.api.timeout_s, 1))),
    log(nb::log::get("api")) {
  // nop
}

// Handlers of the core capture `this`, not a shared_ptr: the server keeps
// the core alive until its io thread is joined, and a handler left in the
// stopped io_context must not keep the core (and itself) alive for ever.
void core::accept() {
  acceptor.async_accept([self = this](beast::error_code ec, tcp::socket s) {
    if (ec == net::error::operation_aborted || !self->acceptor.is_open())
      return;
    if (!ec) {
      self->admit(std::move(s));
      self->accept();
      return;
    }
    // Out of file descriptors (or similar): retrying at once would spin.
    self->log->warn("[api] accept failed: {}; retrying in 100 ms",
                    ec.message());
    self->accept_pause.expires_after(std::chrono::milliseconds(100));
    self->accept_pause.async_wait([self](beast::error_code e) {
      if (!e && self->acceptor.is_open())
        self->accept();
    });
  });
}

void core::admit(tcp::socket s) {
  beast::error_code ec;
  auto peer = s.remote_endpoint(ec);
  auto client = ec ? std::string{"unknown"} : peer.address().to_string();
  s.set_option(tcp::no_delay(true), ec);
  auto c = std::make_shared<conn>(*this, std::move(s), client);
  if (stopping) {
    c->refuse("the API server is shutting down");
    return;
  }
  // At a cap, the oldest connection still waiting for a request makes room
  // (a slowloris client's own first); one being answered never does.
  auto make_room = [this](const std::string* of_client) {
    for (auto& old : conns)
      if (old->waiting() && (!of_client || old->client == *of_client)) {
        auto victim = old; // evict() erases `old` from the list
        victim->evict();
        return true;
      }
    return false;
  };
  if (per_client[client] >= limits.max_connections_per_client
      && !make_room(&client)) {
    c->refuse("too many connections from " + client + " (at most "
              + std::to_string(limits.max_connections_per_client) + ")");
    return;
  }
  if (conns.size() >= limits.max_connections && !make_room(nullptr)) {
    c->refuse("too many connections (at most "
              + std::to_string(limits.max_connections) + ")");
    return;
  }
  conns.push_back(c);
  c->entry = std::prev(conns.end());
  c->listed = true;
  ++per_client[client];
  ++open;
  c->start();
}

void core::forget(conn& c) {
  if (!c.listed)
    return;
  c.listed = false;
  if (auto i = per_client.find(c.client);
      i != per_client.end() && --i->second == 0)
    per_client.erase(i);
  --open;
  conns.erase(c.entry); // may destroy `c` once its handlers are done
}

void core::trim_soon() {
  if (trim_pending)
    return;
  trim_pending = true;
  trim_timer.expires_after(std::chrono::seconds(1));
  trim_timer.async_wait([this](beast::error_code ec) {
    trim_pending = false;
    if (!ec)
      give_back_free_heap();
  });
}

void core::shutdown() {
  stopping = true;
  beast::error_code ec;
  acceptor.close(ec);
  accept_pause.cancel();
  trim_timer.cancel();
  for (auto& c : std::list<std::shared_ptr<conn>>{conns})
    c->shutdown();
}

} // namespace api::detail

struct api_server::impl {
  std::shared_ptr<core> c;
  std::thread io;
  std::atomic<bool> ran_out{false};
  uint16_t port = 0;
  bool stopped = false;

  /// Runs the loop until it runs out of work or is stopped; a handler that
  /// throws must not end the server: logged, and the loop goes on.
  void run() {
    while (true) {
      try {
        c->ioc.run();
        return;
      } catch (const std::exception& e) {
        c->log->error("[api] handler failed: {}", e.what());
      }
    }
  }

  void start_thread() {
    io = std::thread([this] {
      name_thread("nb.api");
      run();
      ran_out = true;
    });
  }
};

api_server::api_server(caf::actor_system& sys, router_actor router,
                       const settings& cfg, api_limits limits, api_loop loop)
  : impl_(std::make_unique<impl>()) {
  if (!is_loopback_host(cfg.api.host) && cfg.api.api_key.empty())
    throw std::runtime_error("api.apiKey is required when the API listens "
                             "beyond loopback (api.host is '"
                             + cfg.api.host + "')");
  impl_->c = std::make_shared<core>(sys, std::move(router), cfg, limits);
  auto& c = *impl_->c;
  try {
    impl_->port = listen_on(c.acceptor, cfg.api.host,
                            static_cast<uint16_t>(cfg.api.port));
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string{"api: "} + e.what());
  }
  c.accept();
  if (loop == api_loop::own_thread)
    impl_->start_thread();
  c.log->info("OpenAI-compatible API listening on {}:{}{}", cfg.api.host,
              impl_->port, cfg.api.api_key.empty() ? "" : " (bearer auth)");
}

int api_server::serve_until_signal(const sigset_t& signals) {
  auto& c = *impl_->c;
  int sig = 0;
  int fd = impl_->io.joinable()
             ? -1
             : ::signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd >= 0) {
    net::posix::stream_descriptor signal_fd{c.ioc, fd}; // closes it
    bool arrived = false;
    bool waiting = false;
    auto arm = [&] {
      waiting = true;
      signal_fd.async_wait(net::posix::stream_descriptor::wait_read,
                           [&](beast::error_code) {
                             waiting = false;
                             signalfd_siginfo info{};
                             if (::read(fd, &info, sizeof info)
                                 == static_cast<ssize_t>(sizeof info)) {
                               sig = static_cast<int>(info.ssi_signo);
                               arrived = true;
                             }
                           });
    };
    while (!arrived) {
      if (!waiting)
        arm(); // the first time, and after a wake-up with nothing to read
      try {
        if (c.ioc.run_one() == 0)
          break; // stopped: wait for the signal the plain way below
      } catch (const std::exception& e) {
        c.log->error("[api] handler failed: {}", e.what());
      }
    }
    if (waiting) { // the loop stopped under us: the wait ends here
      signal_fd.cancel();
      c.ioc.restart();
      while (waiting && c.ioc.run_one() > 0) {
      }
    }
  }
  if (!impl_->io.joinable())
    impl_->start_thread(); // the shutdown's answers go out from there
  if (sig == 0)
    sigwait(&signals, &sig);
  return sig;
}

api_server::~api_server() {
  stop();
}

void api_server::refuse_new() {
  net::post(impl_->c->ioc, [c = impl_->c.get()] { c->refusing = true; });
}

void api_server::stop() {
  if (impl_->stopped)
    return;
  impl_->stopped = true;
  if (!impl_->io.joinable()) // caller_first, never served
    impl_->start_thread();
  net::post(impl_->c->ioc, [c = impl_->c.get()] { c->shutdown(); });
  // The last answers and stream endings are written, then run() runs out.
  end_io_thread(impl_->c->ioc, impl_->io, impl_->ran_out);
}

uint16_t api_server::port() const {
  return impl_->port;
}

size_t api_server::connections() const {
  return impl_->c->open.load();
}

} // namespace nb
