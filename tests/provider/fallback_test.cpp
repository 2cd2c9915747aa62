// Fallback models: which failures fail over, the order candidates are
// tried in against real scripted servers, no failover once text was
// streamed, and the circuit breaker in the provider actor.
#include <doctest/doctest.h>

#include <caf/all.hpp>

#include "actors/provider/fallback.hpp"
#include "actors/provider/fallback_call.hpp"
#include "actors/provider/provider.hpp"
#include "tests/provider/client_fixture.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using namespace nb::test;

namespace {

/// Primary "primary-model" on `a`; inline fallbacks "backup-1" on `b` and
/// "backup-2" on `c` (custom providers, OpenAI-compatible).
settings three_models(const fake_llm& a, const fake_llm& b,
                      const fake_llm& c) {
  settings s;
  s.agent.model = "primary-model";
  s.agent.provider = "custom";
  s.providers["custom"].api_base = a.base_url();
  s.providers["b"].api_base = b.base_url();
  s.providers["c"].api_base = c.base_url();
  fallback_model f1;
  f1.model = "backup-1";
  f1.provider = "b";
  fallback_model f2;
  f2.model = "backup-2";
  f2.provider = "c";
  f2.max_tokens = 99;
  s.agent.fallback_models = {f1, f2};
  return s;
}

client_options single_attempt() {
  auto o = fast();
  o.retry_delays = {milliseconds{5}};
  return o;
}

/// three_models() where the primary is down (503 twice: its retries), b
/// refuses the key (401) and c answers.
settings only_backup_2_answers(fake_llm& a, fake_llm& b, fake_llm& c) {
  a.push(error(503, "primary down"));
  a.push(error(503, "primary down"));
  b.push(error(401, "bad key for b"));
  c.push(text("answer from backup-2"));
  return three_models(a, b, c);
}

fallback_outcome run(const settings& s, const model_request& req,
                     recorder& rec, size_t start = 0) {
  client_pool pool{single_attempt(), nullptr};
  return call_with_fallbacks(pool, plan_candidates(s, req), start, req,
                             rec.cb());
}

} // namespace

TEST_CASE("each fallback starts from the caller's settings, not the last one's") {
  fake_llm a, b, c;
  auto s = only_backup_2_answers(a, b, c);
  // backup-1 overrides the caller's limit and temperature; backup-2 does not.
  s.agent.fallback_models[0].max_tokens = 77;
  s.agent.fallback_models[0].temperature = 0.9;
  s.agent.fallback_models[1].max_tokens = 0;
  recorder rec;
  auto req = ask("hi"); // max_tokens 64, temperature 0.2
  auto out = run(s, req, rec);
  CHECK(out.reply.content == "answer from backup-2");
  REQUIRE(b.request_count() == 1);
  CHECK(b.requests()[0].body["max_tokens"] == 77);
  CHECK(b.requests()[0].body["temperature"] == 0.9);
  REQUIRE(c.request_count() == 1);
  CHECK(c.requests()[0].body["model"] == "backup-2");
  CHECK(c.requests()[0].body["max_tokens"] == 64);
  CHECK(c.requests()[0].body["temperature"] == 0.2);
  CHECK(c.requests()[0].body["messages"][0]["content"] == "hi");
}

TEST_CASE("which failures fail over") {
  auto http = [](int status, std::string detail = "x") {
    return attempt_failure{failure_kind::http_status, status, detail, false, {}};
  };
  for (int s : {401, 402, 403, 408, 409, 429, 500, 502, 503, 529})
    CHECK_MESSAGE(fails_over(http(s)), s);
  for (int s : {400, 404, 422})
    CHECK_FALSE_MESSAGE(fails_over(http(s)), s);
  CHECK(fails_over(http(400, "insufficient_quota: add credits")));
  CHECK(fails_over({failure_kind::timeout, 0, "timed out", true, {}}));
  CHECK(fails_over({failure_kind::connection, 0, "refused", true, {}}));
  CHECK(fails_over({failure_kind::protocol, 0,
                    "Model returned an empty response (no choices).", false,
                    {}}));
  CHECK_FALSE(fails_over({failure_kind::cancelled, 0, "", false, {}}));
  CHECK_FALSE(fails_over({failure_kind::protocol, 0,
                          "Model returned an error: content_filter", false,
                          {}}));
}

TEST_CASE("the plan lists the primary then the fallbacks with inherited values") {
  fake_llm a, b, c;
  auto s = three_models(a, b, c);
  s.model_presets["cheap"] = model_preset{"cheap-model", "c", 123, 4096, 0.7};
  fallback_model by_preset;
  by_preset.preset = "cheap";
  s.agent.fallback_models.push_back(by_preset);
  // A fallback that is the primary again is left out.
  fallback_model again;
  again.model = "primary-model";
  again.provider = "custom";
  s.agent.fallback_models.push_back(again);
  auto plan = plan_candidates(s, model_request{});
  REQUIRE(plan.size() == 4);
  CHECK(plan[0].label == "primary-model");
  CHECK(plan[1].choice.name == "b");
  CHECK(plan[1].max_tokens == 0);
  CHECK(plan[2].max_tokens == 99);
  CHECK(plan[3].label == "cheap");
  CHECK(plan[3].choice.model == "cheap-model");
  CHECK(plan[3].max_tokens == 123);
  CHECK(plan[3].temperature == 0.7);
}

TEST_CASE("failover goes through the fallbacks in order") {
  fake_llm a, b, c;
  auto s = only_backup_2_answers(a, b, c);
  recorder rec;
  auto out = run(s, ask("hi"), rec);
  CHECK(out.reply.error.empty());
  CHECK(out.reply.content == "answer from backup-2");
  CHECK(out.reply.fallback_model == "backup-2");
  CHECK(out.first_failed);
  // The primary exhausted its retries first; b's 401 is not retried.
  CHECK(a.request_count() == 2);
  CHECK(b.request_count() == 1);
  REQUIRE(c.request_count() == 1);
  CHECK(c.requests()[0].body["model"] == "backup-2");
  CHECK(c.requests()[0].body["max_tokens"] == 99);
  bool told = false;
  for (auto& n : rec.notices)
    told = told
           || (n.find("primary-model") != std::string::npos
               && n.find("fallback model backup-1") != std::string::npos);
  CHECK(told);
  CHECK(rec.notices.back().find("fallback model backup-2") != std::string::npos);
}

TEST_CASE("invalid requests do not fail over") {
  fake_llm a, b, c;
  a.push(error(400, "messages: bad role"));
  auto s = three_models(a, b, c);
  recorder rec;
  auto out = run(s, ask("hi"), rec);
  CHECK(out.reply.finish_reason == "error");
  CHECK(out.reply.error.find("bad role") != std::string::npos);
  CHECK_FALSE(out.first_failed);
  CHECK(b.request_count() == 0);
  CHECK(c.request_count() == 0);
}

TEST_CASE("no failover once text was streamed to the user") {
  fake_llm a, b, c;
  for (int i = 0; i < 2; ++i) {
    auto s = stream_text({"Hel", "lo"});
    s.events.resize(2); // role chunk and "Hel", then silence
    s.stall = true;
    a.push(s);
  }
  auto s = three_models(a, b, c);
  recorder rec;
  auto out = run(s, ask("hi", true), rec);
  CHECK(out.reply.finish_reason == "error");
  CHECK(out.reply.error.find("timed out") != std::string::npos);
  CHECK(rec.deltas == std::vector<std::string>{"Hel"});
  CHECK(b.request_count() == 0);
  CHECK(c.request_count() == 0);
}

TEST_CASE("a stream that fails before any text fails over") {
  fake_llm a, b, c;
  a.push(error(529, "overloaded"));
  a.push(error(529, "overloaded"));
  b.push(stream_text({"from ", "backup"}));
  auto s = three_models(a, b, c);
  recorder rec;
  auto out = run(s, ask("hi", true), rec);
  CHECK(out.reply.content == "from backup");
  CHECK(rec.deltas == std::vector<std::string>{"from ", "backup"});
  CHECK(out.reply.fallback_model == "backup-1");
}

TEST_CASE("the circuit breaker opens after repeated failures and closes later") {
  using clock = circuit_breaker::clock;
  circuit_breaker br{3, std::chrono::seconds{60}};
  auto t0 = clock::now();
  br.record("p", true, t0);
  br.record("p", true, t0);
  CHECK_FALSE(br.open("p", t0));
  br.record("p", true, t0);
  CHECK(br.open("p", t0 + std::chrono::seconds{59}));
  CHECK_FALSE(br.open("p", t0 + std::chrono::seconds{61}));
  // One more failure after the cooldown opens it again at once.
  br.record("p", true, t0 + std::chrono::seconds{61});
  CHECK(br.open("p", t0 + std::chrono::seconds{62}));
  br.record("p", false, t0 + std::chrono::seconds{62});
  CHECK_FALSE(br.open("p", t0 + std::chrono::seconds{63}));
  CHECK_FALSE(br.open("other", t0));
}

TEST_CASE("the provider skips a failing primary and tells the user") {
  system_fixture fx;
  fake_llm a, b, c;
  a.set_responder([](const json&) { return error(500, "primary broken"); });
  auto s = three_models(a, b, c);
  auto o = single_attempt();
  o.breaker_threshold = 2;
  o.breaker_cooldown = std::chrono::seconds{60};
  auto provider = spawn_provider(fx.sys, s, stats_actor{}, o);
  caf::scoped_actor self{fx.sys};
  auto ask_once = [&] {
    model_reply out;
    self->request(provider, std::chrono::seconds{30}, ask("hi"))
      .receive([&](model_reply& r) { out = std::move(r); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return out;
  };
  for (int i = 0; i < 2; ++i) {
    auto r = ask_once();
    CHECK(r.fallback_model == "backup-1");
    CHECK(r.content.rfind("echo: hi", 0) == 0);
  }
  auto before = a.request_count();
  CHECK(before == 4); // two calls, two attempts each
  auto r = ask_once();
  CHECK(r.fallback_model == "backup-1");
  CHECK(a.request_count() == before); // skipped while the breaker is open
  CHECK(b.request_count() == 3);
  caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
}
