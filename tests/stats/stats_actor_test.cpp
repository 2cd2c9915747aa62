// The stats actor in a real actor system: samples in, JSON and text out,
// and the per-actor meter reporting into it.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/common/meter.hpp"
#include "actors/stats/stats.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using nb::test::system_fixture;
using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {


std::string ask(caf::actor_system& sys, const stats_actor& stats,
                const std::string& format) {
  caf::scoped_actor self{sys};
  std::string out;
  self->request(stats, 5s, stats_atom::value, format)
    .receive([&](std::string& text) { out = std::move(text); },
             [&](caf::error& err) { out = "error: " + sys.render(err); });
  return out;
}

using echo_actor = caf::typed_actor<caf::replies_to<int32_t>::with<int32_t>>;

struct echo_state {
  echo_state() = default;
  static inline const char* name = "echo";
  actor_meter meter;
};

echo_actor::behavior_type
echo_impl(echo_actor::stateful_pointer<echo_state> self, stats_actor stats,
          bool short_lived) {
  self->state.meter.start(self, "echo", std::move(stats), short_lived);
  return {
    [self](int32_t x) {
      auto t = self->state.meter.measure();
      if (x < 0)
        self->state.meter.failed();
      return x;
    },
  };
}

} // namespace

TEST_CASE("the stats actor answers json and prometheus for its samples") {
  system_fixture fx;
  auto stats = spawn_stats(fx.sys);
  {
    caf::scoped_actor self{fx.sys};
    self->send(stats, gauge_sample{"sessions_live", 3});
    self->send(stats, tool_sample{"exec", false, 100});
    self->send(stats, provider_sample{"p", "m", true, 1, 1000, {}});
    self->send(stats, turn_sample{"completed", {}, 10});
    actor_sample a;
    a.kind = "router";
    a.spawned = 1;
    a.handled = 2;
    self->send(stats, a);
  }
  // One sender's messages arrive in order, but these came from another
  // scoped actor than the query: poll until they are in.
  json doc;
  for (int i = 0; i < 200; ++i) {
    doc = json::parse(ask(fx.sys, stats, "json"));
    if (doc["actors"].contains("router"))
      break;
    std::this_thread::sleep_for(5ms);
  }
  CHECK(doc["gauges"]["sessions_live"] == 3);
  CHECK(doc["tools"]["exec"]["calls"] == 1);
  CHECK(doc["provider"]["calls_ok"] == 1);
  CHECK(doc["turns"]["by_outcome"]["completed"] == 1);
  CHECK(doc["actors"]["router"]["live"] == 1);
  CHECK(doc["rss_bytes"].get<int64_t>() > 0);
  CHECK(doc["threads"].get<int64_t>() >= 1);
  auto text = ask(fx.sys, stats, "prometheus");
  CHECK(text.find("\nnanobot_sessions_live 3\n") != std::string::npos);
  CHECK(text.find("nanobot_actors_live{kind=\"router\"} 1\n")
        != std::string::npos);
  auto bad = ask(fx.sys, stats, "xml");
  CHECK(bad.find("error: ") == 0);
  CHECK(bad.find("unknown stats format 'xml'") != std::string::npos);
  caf::anon_send_exit(stats, caf::exit_reason::user_shutdown);
}

TEST_CASE("a metered actor shows up live and then gone") {
  system_fixture fx;
  auto stats = spawn_stats(fx.sys);
  auto echo = fx.sys.spawn(echo_impl, stats, false);
  {
    caf::scoped_actor self{fx.sys};
    for (int32_t x : {1, 2, -3})
      self->request(echo, 5s, x).receive([](int32_t) {},
                                         [](caf::error&) {});
  }
  auto wait_for = [&](auto pred) {
    json doc;
    for (int i = 0; i < 400; ++i) {
      doc = json::parse(ask(fx.sys, stats, "json"));
      if (pred(doc))
        break;
      std::this_thread::sleep_for(5ms);
    }
    return doc;
  };
  auto doc = wait_for([](const json& d) {
    return d["actors"].contains("echo") && d["actors"]["echo"]["handled"] == 3;
  });
  CHECK(doc["actors"]["echo"]["live"] == 1);
  CHECK(doc["actors"]["echo"]["handled"] == 3);
  CHECK(doc["actors"]["echo"]["errors"] == 1);
  caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
  echo = nullptr;
  doc = wait_for([](const json& d) { return d["actors"]["echo"]["live"] == 0; });
  CHECK(doc["actors"]["echo"]["live"] == 0);
  caf::anon_send_exit(stats, caf::exit_reason::user_shutdown);
}

TEST_CASE("a short-lived metered actor reports its counts when it quits") {
  // The runner lives for one turn: its meter arms no clock entry for the
  // counts left when its mailbox runs empty (each woke CAF's clock thread,
  // once per turn); they come with its quit report.
  system_fixture fx;
  auto stats = spawn_stats(fx.sys);
  auto echo = fx.sys.spawn(echo_impl, stats, true);
  {
    caf::scoped_actor self{fx.sys};
    for (int32_t x : {1, 2, -3})
      self->request(echo, 5s, x).receive([](int32_t) {},
                                         [](caf::error&) {});
  }
  auto doc_of = [&] { return json::parse(ask(fx.sys, stats, "json")); };
  json doc;
  for (int i = 0; i < 400 && !doc_of()["actors"].contains("echo"); ++i)
    std::this_thread::sleep_for(5ms);
  // Three times the deferred report's 100 ms: a long-lived actor would
  // have reported by now.
  std::this_thread::sleep_for(300ms);
  doc = doc_of();
  CHECK(doc["actors"]["echo"]["live"] == 1);
  CHECK(doc["actors"]["echo"]["handled"] == 0);
  caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
  echo = nullptr;
  for (int i = 0; i < 400 && doc_of()["actors"]["echo"]["live"] != 0; ++i)
    std::this_thread::sleep_for(5ms);
  doc = doc_of();
  CHECK(doc["actors"]["echo"]["live"] == 0);
  CHECK(doc["actors"]["echo"]["handled"] == 3);
  CHECK(doc["actors"]["echo"]["errors"] == 1);
  caf::anon_send_exit(stats, caf::exit_reason::user_shutdown);
}
