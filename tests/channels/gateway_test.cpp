// The gateway's HTTP server over real sockets: /health, /stats, /metrics.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "actors/channels/gateway_http/gateway_http_server.hpp"
#include "actors/stats/stats.hpp"
#include "tests/channels/fixture.hpp"

using namespace nb;
using namespace nb::test;
using json = nlohmann::json;

namespace {

settings local_settings() {
  settings s;
  s.gateway.host = "127.0.0.1";
  s.gateway.port = 0;
  return s;
}

} // namespace

TEST_CASE("gateway health stats and metrics answer over HTTP") {
  system_fixture fx;
  auto stats = spawn_stats(fx.sys);
  caf::anon_send(stats, gauge_sample{"sessions_live", 5});
  gateway_http_server gw{fx.sys, stats, local_settings()};
  CHECK(gw.port() != 0);
  httplib::Client cli{"127.0.0.1", gw.port()};

  auto health = cli.Get("/health");
  REQUIRE(health);
  CHECK(health->status == 200);
  CHECK(health->get_header_value("Content-Type") == "application/json");
  auto h = json::parse(health->body);
  CHECK(h["status"] == "ok");
  CHECK(h["uptime_s"].is_number());

  json doc;
  for (int i = 0; i < 200; ++i) {
    auto res = cli.Get("/stats");
    REQUIRE(res);
    REQUIRE(res->status == 200);
    doc = json::parse(res->body);
    if (doc["gauges"].contains("sessions_live"))
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(doc["gauges"]["sessions_live"] == 5);
  CHECK(doc["rss_bytes"].get<int64_t>() > 0);
  CHECK(doc["actors"].is_object());

  auto metrics = cli.Get("/metrics");
  REQUIRE(metrics);
  CHECK(metrics->status == 200);
  CHECK(metrics->get_header_value("Content-Type").rfind(
          "text/plain; version=0.0.4", 0)
        == 0);
  CHECK(metrics->body.find("# TYPE nanobot_uptime_seconds gauge\n")
        != std::string::npos);
  CHECK(metrics->body.find("\nnanobot_sessions_live 5\n") != std::string::npos);

  auto missing = cli.Get("/nope");
  REQUIRE(missing);
  CHECK(missing->status == 404);
  gw.stop();
  caf::anon_send_exit(stats, caf::exit_reason::user_shutdown);
}

TEST_CASE("gateway stats answer 503 when the stats actor is gone") {
  system_fixture fx;
  auto stats = spawn_stats(fx.sys);
  caf::anon_send_exit(stats, caf::exit_reason::user_shutdown);
  gateway_http_server gw{fx.sys, stats, local_settings()};
  httplib::Client cli{"127.0.0.1", gw.port()};
  for (auto path : {"/stats", "/metrics"}) {
    auto res = cli.Get(path);
    REQUIRE(res);
    CHECK(res->status == 503);
    auto err = json::parse(res->body);
    CHECK(err["error"]["type"] == "server_error");
    CHECK(err["error"]["code"] == 503);
    CHECK(err["error"]["message"].get<std::string>().find("stats unavailable")
          == 0);
  }
  auto health = cli.Get("/health");
  REQUIRE(health);
  CHECK(health->status == 200);
}

TEST_CASE("gateway stats answer 503 without a stats actor") {
  system_fixture fx;
  gateway_http_server gw{fx.sys, stats_actor{}, local_settings()};
  httplib::Client cli{"127.0.0.1", gw.port()};
  auto res = cli.Get("/stats");
  REQUIRE(res);
  CHECK(res->status == 503);
}

TEST_CASE("a taken port is refused with the address named") {
  system_fixture fx;
  gateway_http_server first{fx.sys, stats_actor{}, local_settings()};
  auto cfg = local_settings();
  cfg.gateway.port = first.port();
  std::string what;
  try {
    gateway_http_server second{fx.sys, stats_actor{}, cfg};
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  CHECK(what.find("gateway: cannot listen on 127.0.0.1:"
                  + std::to_string(first.port()))
        == 0);
  CHECK(what.find("in use") != std::string::npos);
}
