#include "actors/channels/gateway_http/gateway_http_server.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>

#include <caf/scoped_actor.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/http/http_listener.hpp"
#include "actors/channels/kit/status_json.hpp"
#include "actors/common/log.hpp"
#include "actors/stats/process.hpp"

namespace nb {

namespace {

constexpr const char* json_type = "application/json";
constexpr const char* prometheus_type = "text/plain; version=0.0.4; charset=utf-8";

std::string error_body(const std::string& message, int status) {
  return nlohmann::json{{"error",
                         {{"message", message},
                          {"type", "server_error"},
                          {"code", status}}}}
    .dump();
}

} // namespace

struct gateway_http_server::impl {
  caf::actor_system& sys;
  gateway_settings cfg;
  stats_actor stats;
  std::chrono::milliseconds stats_timeout;
  std::shared_ptr<spdlog::logger> log = nb::log::get("gateway");
  http_listener listener{"gateway"};
  std::mutex channels_mu; // set once from the main thread, read by handlers
  channel_manager_actor channels;

  impl(caf::actor_system& s, gateway_settings c, stats_actor st,
       std::chrono::milliseconds t)
    : sys(s), cfg(std::move(c)), stats(std::move(st)), stats_timeout(t) {
    // nop
  }

  /// Asks the stats actor from this (httplib) thread; answers 503 on failure.
  void serve_stats(httplib::Response& res, const std::string& format,
                   const char* content_type) {
    std::optional<std::string> text;
    std::string failure = "the stats actor is not running";
    if (stats) {
      caf::scoped_actor self{sys};
      self->request(stats, stats_timeout, stats_atom::value, format)
        .receive([&](std::string& t) { text = std::move(t); },
                 [&](caf::error& err) { failure = sys.render(err); });
    }
    if (text) {
      res.set_content(*text, content_type);
      return;
    }
    log->warn("stats unavailable: {}", failure);
    res.status = 503;
    res.set_content(error_body("stats unavailable: " + failure, 503),
                    json_type);
  }

  void serve_channels(httplib::Response& res) {
    channel_manager_actor mgr;
    {
      std::lock_guard<std::mutex> guard{channels_mu};
      mgr = channels;
    }
    std::optional<std::string> text;
    std::string failure = "the channels are not running";
    if (mgr) {
      caf::scoped_actor self{sys};
      self->request(mgr, stats_timeout, channel_status_atom::value)
        .receive([&](std::vector<channel_status>& all) {
                   text = channels_json(all);
                 },
                 [&](caf::error& err) { failure = sys.render(err); });
    }
    if (text) {
      res.set_content(*text, json_type);
      return;
    }
    res.status = 503;
    res.set_content(error_body("channels unavailable: " + failure, 503),
                    json_type);
  }

  void routes() {
    auto& svr = listener.server();
    svr.Get("/health", [](const httplib::Request&, httplib::Response& res) {
      auto uptime = std::round(process_uptime_s() * 1000) / 1000;
      res.set_content(
        nlohmann::json{{"status", "ok"}, {"uptime_s", uptime}}.dump(),
        json_type);
    });
    svr.Get("/stats", [this](const httplib::Request&, httplib::Response& res) {
      serve_stats(res, "json", json_type);
    });
    svr.Get("/channels",
            [this](const httplib::Request&, httplib::Response& res) {
              serve_channels(res);
            });
    svr.Get("/metrics",
            [this](const httplib::Request&, httplib::Response& res) {
              serve_stats(res, "prometheus", prometheus_type);
            });
    svr.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.status == 404 && res.body.empty())
        res.set_content("Not Found", "text/plain");
    });
  }
};

gateway_http_server::gateway_http_server(
  caf::actor_system& sys, stats_actor stats, const settings& cfg,
  std::chrono::milliseconds stats_timeout)
  : impl_(std::make_unique<impl>(sys, cfg.gateway, std::move(stats),
                                 stats_timeout)) {
  impl_->routes();
  const auto& c = impl_->cfg;
  if (!is_loopback_host(c.host))
    impl_->log->warn("gateway HTTP on {}:{} is reachable beyond loopback and "
                     "has no authentication",
                     c.host, c.port);
  auto port = impl_->listener.start(c.host, c.port,
                                    std::clamp(c.http_threads, 1, 4));
  impl_->log->info("gateway HTTP listening on {}:{}", c.host, port);
}

gateway_http_server::~gateway_http_server() {
  stop();
}

void gateway_http_server::serve_channels(channel_manager_actor channels) {
  std::lock_guard<std::mutex> guard{impl_->channels_mu};
  impl_->channels = std::move(channels);
}

void gateway_http_server::stop() {
  impl_->listener.stop();
}

uint16_t gateway_http_server::port() const {
  return impl_->listener.port();
}

} // namespace nb
