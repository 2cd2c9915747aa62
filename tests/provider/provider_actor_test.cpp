// The provider actor: the worker bound and its queue, deltas and notices to
// stream_to, figures to stats, the unconfigured case, and shutdown.
#include <doctest/doctest.h>

#include <chrono>
#include <set>
#include <thread>

#include <unistd.h>

#include <caf/all.hpp>

#include "actors/provider/provider.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/fake_llm.hpp"
#include "tests/support/proc_scan.hpp"

namespace {

using namespace nb;
using namespace nb::test;
using json = nlohmann::json;
using std::chrono::milliseconds;

caf::actor_system_config& test_config(caf::actor_system_config& cfg) {
  register_messages(cfg);
  cfg.set("scheduler.max-threads", 2);
  return cfg;
}

struct env {
  caf::actor_system_config cfg;
  caf::actor_system sys{test_config(cfg)};
};

settings settings_for(const fake_llm& llm, int workers) {
  settings s;
  s.agent.model = "fake-model";
  s.providers["custom"].api_base = llm.base_url();
  s.gateway.provider_workers = workers;
  return s;
}

client_options actor_test_options() {
  client_options o;
  o.retry_delays = {milliseconds{10}, milliseconds{20}, milliseconds{40}};
  o.retry_after_buffer = milliseconds{0};
  o.stream_idle_timeout = milliseconds{500};
  return o;
}

model_request actor_test_request(std::string text, bool stream = false) {
  model_request r;
  r.request_id = "k:1:0";
  r.messages_json = json::array({{{"role", "user"}, {"content", text}}}).dump();
  r.stream = stream;
  return r;
}

/// A stats actor that counts what it gets and tells on request.
struct counting_stats_state {
  counting_stats_state() = default;
  static inline const char* name = "counting_stats";
  int provider_samples = 0;
  int ok_samples = 0;
  int64_t peak_inflight = 0;
  int actor_kinds_seen = 0;
  std::set<std::string> kinds;
};

stats_actor::behavior_type
counting_stats(stats_actor::stateful_pointer<counting_stats_state> self) {
  return {
    [self](actor_sample& s) { self->state.kinds.insert(s.kind); },
    [](turn_sample&) {},
    [self](provider_sample& s) {
      ++self->state.provider_samples;
      if (s.ok)
        ++self->state.ok_samples;
    },
    [](tool_sample&) {},
    [self](gauge_sample& g) {
      if (g.name == "provider_inflight")
        self->state.peak_inflight = std::max(self->state.peak_inflight,
                                             g.value);
    },
    [self](stats_atom, std::string&) -> std::string {
      auto& st = self->state;
      return std::to_string(st.provider_samples) + " "
             + std::to_string(st.ok_samples) + " "
             + std::to_string(st.peak_inflight) + " "
             + (st.kinds.count("provider") && st.kinds.count("provider_worker")
                  ? "kinds"
                  : "nokinds");
    },
  };
}

} // namespace

TEST_CASE("requests beyond the worker bound queue and all get answers") {
  fake_llm llm;
  llm.set_responder([](const json& body) {
    auto r = fake_llm::echo(body);
    r.delay = milliseconds{60};
    return r;
  });
  env e;
  auto stats = e.sys.spawn(counting_stats);
  auto provider =
    spawn_provider(e.sys, settings_for(llm, 2), stats, actor_test_options());
  caf::scoped_actor self{e.sys};
  std::set<std::string> expected;
  for (int i = 0; i < 10; ++i) {
    expected.insert("echo: m" + std::to_string(i));
    self->send(provider, actor_test_request("m" + std::to_string(i)));
  }
  std::set<std::string> got;
  size_t i = 0;
  self->receive_for(i, size_t{10})(
    [&](model_reply& r) { got.insert(r.content); },
    caf::after(std::chrono::seconds(20)) >> [&] { FAIL("no reply"); });
  CHECK(got == expected);
  CHECK(llm.request_count() == 10);
  CHECK(llm.max_concurrent() <= 2);
  std::string figures;
  self->request(stats, std::chrono::seconds(5), stats_atom::value,
                std::string{"json"})
    .receive([&](std::string& s) { figures = s; },
             [&](caf::error& err) { FAIL(e.sys.render(err)); });
  CHECK(figures.starts_with("10 10 "));
  CHECK(figures.find(" 0 ") == std::string::npos); // inflight was reported
  CHECK(figures.find("nokinds") == std::string::npos);
  caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(stats, caf::exit_reason::user_shutdown);
}

TEST_CASE("provider workers free past their limit end with no further call") {
  fake_llm llm;
  llm.set_responder([](const json& body) {
    auto r = fake_llm::echo(body);
    r.delay = milliseconds{100}; // two calls at once: two workers
    return r;
  });
  env e;
  auto o = actor_test_options();
  o.worker_idle_limit = milliseconds{300};
  auto provider = spawn_provider(e.sys, settings_for(llm, 2), stats_actor{}, o);
  auto workers = [] {
    auto names = thread_names(static_cast<int>(::getpid()));
    auto it = names.find("nb.provider");
    return it == names.end() ? 0L : it->second;
  };
  CHECK(workers() == 0); // none before the first call
  caf::scoped_actor self{e.sys};
  auto ask_twice = [&] {
    self->send(provider, actor_test_request("a"));
    self->send(provider, actor_test_request("b"));
    std::set<std::string> got;
    size_t i = 0;
    self->receive_for(i, size_t{2})(
      [&](model_reply& r) { got.insert(r.content); },
      caf::after(std::chrono::seconds(20)) >> [&] { FAIL("no reply"); });
    CHECK(got == std::set<std::string>{"echo: a", "echo: b"});
  };
  ask_twice();
  CHECK(workers() > 0); // each worker names its threads nb.provider
  // Nothing else is asked: the workers' own limit ends them and their threads.
  CHECK(eventually([&] { return workers() == 0; }));
  // And the next calls get fresh ones.
  ask_twice();
  CHECK(llm.request_count() == 4);
  caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
}

TEST_CASE("stream deltas and retry notices reach stream_to") {
  fake_llm llm;
  llm.push(error(503, "busy"));
  llm.push(stream_text({"one ", "two ", "three"}));
  env e;
  auto provider = spawn_provider(e.sys, settings_for(llm, 2), stats_actor{},
                                 actor_test_options());
  caf::scoped_actor self{e.sys};
  auto req = actor_test_request("x", true);
  req.stream_to = caf::actor_cast<model_delta_sink>(self);
  model_reply reply;
  self->request(provider, std::chrono::seconds(10), req)
    .receive([&](model_reply& r) { reply = std::move(r); },
             [&](caf::error& err) { FAIL(e.sys.render(err)); });
  CHECK(reply.content == "one two three");
  CHECK(reply.attempts == 2);
  std::vector<std::string> deltas;
  std::vector<std::string> notices;
  bool quiet = false;
  while (!quiet)
    self->receive(
      [&](model_delta& d) {
        CHECK(d.request_id == "k:1:0");
        deltas.push_back(d.content);
      },
      [&](model_retry_notice& n) { notices.push_back(n.text); },
      caf::after(milliseconds{200}) >> [&] { quiet = true; });
  CHECK(deltas == std::vector<std::string>{"one ", "two ", "three"});
  REQUIRE(notices.size() == 1);
  CHECK(notices[0].starts_with("Model request failed, retry in"));
  caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
}

TEST_CASE("an unconfigured provider answers at once with the problem") {
  env e;
  settings s; // no providers at all
  auto provider = spawn_provider(e.sys, s, stats_actor{});
  caf::scoped_actor self{e.sys};
  model_reply reply;
  self->request(provider, std::chrono::seconds(5), actor_test_request("hello"))
    .receive([&](model_reply& r) { reply = std::move(r); },
             [&](caf::error& err) { FAIL(e.sys.render(err)); });
  CHECK(reply.finish_reason == "error");
  CHECK(reply.error == choose_provider(s).problem);
  CHECK(reply.error.find("providers.openrouter.apiKey") != std::string::npos);
  caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
}

TEST_CASE("stopping the provider stops its workers mid call") {
  fake_llm llm;
  auto s = stream_text({"a"});
  s.events.resize(2);
  s.stall = true;
  llm.push(s);
  auto start = std::chrono::steady_clock::now();
  {
    env e;
    auto o = actor_test_options();
    o.stream_idle_timeout = milliseconds{60'000};
    auto provider = spawn_provider(e.sys, settings_for(llm, 2), stats_actor{}, o);
    caf::scoped_actor self{e.sys};
    self->send(provider, actor_test_request("x", true));
    while (llm.request_count() == 0)
      std::this_thread::sleep_for(milliseconds{5});
    caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
  } // ~actor_system waits for every actor, the blocked worker included
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
}

namespace {

/// A stream that sends one piece and then holds the connection open, with
/// a ping every 50 ms so the fake notices when the client has gone.
fake_response endless_stream() {
  auto s = stream_text({"a"});
  s.events.resize(2);
  s.stall = true;
  s.ping_every = milliseconds{50};
  return s;
}

model_reply next_reply(caf::scoped_actor& self) {
  model_reply out;
  self->receive([&](model_reply& r) { out = std::move(r); },
                caf::after(std::chrono::seconds(20)) >> [&] {
                  out.error = "<no reply>";
                });
  return out;
}

/// A provider with one worker, whose first call streams without end.
provider_actor provider_on_endless_stream(env& e, fake_llm& llm) {
  llm.push(endless_stream());
  auto o = actor_test_options();
  o.stream_idle_timeout = milliseconds{60'000};
  return spawn_provider(e.sys, settings_for(llm, 1), stats_actor{}, o);
}

} // namespace

TEST_CASE("a cancel cuts the running call and closes its connection") {
  fake_llm llm;
  env e;
  auto provider = provider_on_endless_stream(e, llm);
  caf::scoped_actor self{e.sys};
  self->send(provider, actor_test_request("think", true));
  REQUIRE(eventually([&] { return llm.active() == 1; }));
  self->send(provider, model_cancel{"k:1:0"});
  auto r = next_reply(self);
  CHECK(r.finish_reason == "error");
  CHECK(r.error == cancelled_call_text);
  // The model stops generating: the connection is gone, not left to run.
  CHECK(eventually([&] { return llm.active() == 0; }));
  CHECK(llm.request_count() == 1);
  // The same worker takes the next call: the cancel was for that call only.
  self->send(provider, actor_test_request("again"));
  CHECK(next_reply(self).content == "echo: again");
  caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
}

TEST_CASE("a cancel during a retry wait makes no further attempt and no fallback") {
  fake_llm llm;
  fake_llm backup;
  llm.push(error(503, "busy"));
  env e;
  auto o = actor_test_options();
  o.retry_delays = {std::chrono::seconds{30}};
  auto s = settings_for(llm, 1);
  s.agent.provider = "custom";
  // A fallback that would answer: a cancelled call must not move on to it.
  s.providers["backup"].api_base = backup.base_url();
  fallback_model f;
  f.model = "backup-model";
  f.provider = "backup";
  s.agent.fallback_models = {f};
  auto provider = spawn_provider(e.sys, s, stats_actor{}, o);
  caf::scoped_actor self{e.sys};
  self->send(provider, actor_test_request("hello"));
  REQUIRE(eventually([&] { return llm.request_count() == 1; }));
  self->send(provider, model_cancel{"k:1:0"});
  auto r = next_reply(self);
  CHECK(r.error == cancelled_call_text);
  CHECK(llm.request_count() == 1);
  CHECK(backup.request_count() == 0);
  caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
}

TEST_CASE("a cancel drops a queued call before it reaches the model") {
  fake_llm llm;
  env e;
  auto provider = provider_on_endless_stream(e, llm);
  caf::scoped_actor self{e.sys};
  self->send(provider, actor_test_request("first", true));
  REQUIRE(eventually([&] { return llm.active() == 1; }));
  auto second = actor_test_request("second");
  second.request_id = "k:2:0";
  self->send(provider, second); // waits: the only worker is busy
  self->send(provider, model_cancel{"k:2:0"});
  CHECK(next_reply(self).error == cancelled_call_text);
  CHECK(llm.request_count() == 1);
  CHECK(llm.active() == 1); // the first call is not touched
  // An id that is not running (ended, or never sent) changes nothing.
  self->send(provider, model_cancel{"k:9:0"});
  self->send(provider, model_cancel{"k:1:0"});
  CHECK(next_reply(self).error == cancelled_call_text);
  CHECK(eventually([&] { return llm.active() == 0; }));
  caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
}
