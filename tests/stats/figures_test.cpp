// Aggregation and both renderings of the stats figures, without actors.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "actors/stats/figures.hpp"
#include "actors/stats/process.hpp"
#include "actors/stats/prometheus_gauges.hpp"
#include "actors/stats/render.hpp"
#include "tests/support/promtool.hpp"

using namespace nb;
using json = nlohmann::json;

namespace {

int64_t bound_of(int64_t micros) {
  return latency_bucket_bound(latency_bucket(micros));
}

actor_sample sample_of(std::string kind, std::vector<int64_t> times) {
  actor_sample s;
  s.kind = std::move(kind);
  s.latency_hist.assign(latency_buckets, 0);
  for (auto t : times) {
    ++s.latency_hist[static_cast<size_t>(latency_bucket(t))];
    ++s.handled;
  }
  return s;
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (auto p = text.find(needle); p != std::string::npos;
       p = text.find(needle, p + 1))
    ++n;
  return n;
}

stats_figures busy_figures() {
  stats_figures f;
  auto a = sample_of("session", {100, 100, 100});
  a.spawned = 2;
  a.mailbox_high = 7;
  a.errors = 1;
  add_sample(f, a);
  auto b = sample_of("session", {5000});
  b.quit = 1;
  b.mailbox_high = 3;
  add_sample(f, b);
  turn_sample t;
  t.outcome = "completed";
  t.total_us = 2000;
  t.trace = {{turn_state::restore, turn_event::ok, 100},
             {turn_state::run, turn_event::ok, 1500},
             {turn_state::run, turn_event::ok, 300}};
  add_sample(f, t);
  add_sample(f, turn_sample{"error", {}, 50});
  add_sample(f, provider_sample{"openai", "m", true, 2, 40000,
                                {10, 5, 15, 0, false}});
  add_sample(f, provider_sample{"openai", "m", false, 4, 90000,
                                {1, 0, 1, 0, false}});
  add_sample(f, tool_sample{"exec", false, 2000});
  add_sample(f, tool_sample{"exec", true, 4000});
  add_sample(f, tool_sample{"read_file", false, 30});
  add_sample(f, gauge_sample{"sessions_live", 9});
  add_sample(f, gauge_sample{"sessions_live", 4});
  add_sample(f, gauge_sample{"provider_queue", 2});
  return f;
}

} // namespace

TEST_CASE("histogram percentiles come from the bucket that holds the rank") {
  latency_histogram h;
  CHECK(h.quantile(0.5) == 0);
  for (int64_t us = 1; us <= 100; ++us)
    h.add(us);
  CHECK(h.total == 100);
  CHECK(h.quantile(0.5) == bound_of(50));
  CHECK(h.quantile(0.99) == bound_of(99));
  CHECK(h.quantile(1.0) == bound_of(100));
  // Bucket bounds are upper bounds within the ~19 % bucket width.
  CHECK(h.quantile(0.5) >= 50);
  CHECK(h.quantile(0.5) <= 60);
}

TEST_CASE("merging meter histograms folds oversized input into the last bucket") {
  latency_histogram h;
  std::vector<int64_t> buckets(latency_buckets + 3, 0);
  buckets[2] = 4;
  buckets[latency_buckets + 1] = 1;
  h.merge(buckets);
  CHECK(h.total == 5);
  CHECK(h.counts[2] == 4);
  CHECK(h.counts[latency_buckets - 1] == 1);
  CHECK(h.quantile(0.5) == latency_bucket_bound(2));
}

TEST_CASE("actor samples add up per kind") {
  auto f = busy_figures();
  REQUIRE(f.actors.count("session") == 1);
  const auto& k = f.actors.at("session");
  CHECK(k.live() == 1);
  CHECK(k.handled == 4);
  CHECK(k.errors == 1);
  CHECK(k.mailbox_high == 7);
  CHECK(k.handling.quantile(0.5) == bound_of(100));
  CHECK(k.handling.quantile(0.99) == bound_of(5000));
}

TEST_CASE("the JSON rendering carries every documented field") {
  auto doc = json::parse(render_json(busy_figures(), {12.5, 4096, 3}));
  CHECK(doc["uptime_s"] == 12.5);
  CHECK(doc["rss_bytes"] == 4096);
  CHECK(doc["threads"] == 3);
  auto s = doc["actors"]["session"];
  CHECK(s["live"] == 1);
  CHECK(s["handled"] == 4);
  CHECK(s["mailbox_high"] == 7);
  CHECK(s["errors"] == 1);
  CHECK(s["p50_us"] == bound_of(100));
  CHECK(s["p99_us"] == bound_of(5000));
  auto t = doc["turns"];
  CHECK(t["count"] == 2);
  CHECK(t["by_outcome"]["completed"] == 1);
  CHECK(t["by_outcome"]["error"] == 1);
  CHECK(t["states"]["RUN"]["count"] == 2);
  CHECK(t["states"]["RUN"]["total_us"] == 1800);
  CHECK(t["states"]["RUN"]["p99_us"] == bound_of(1500));
  CHECK(t["states"]["RESTORE"]["count"] == 1);
  auto p = doc["provider"];
  CHECK(p["calls_ok"] == 1);
  CHECK(p["calls_failed"] == 1);
  CHECK(p["attempts"] == 6);
  CHECK(p["prompt_tokens"] == 11);
  CHECK(p["completion_tokens"] == 5);
  CHECK(p["total_tokens"] == 16);
  CHECK(p["p50_us"] == bound_of(40000));
  CHECK(doc["tools"]["exec"]["calls"] == 2);
  CHECK(doc["tools"]["exec"]["errors"] == 1);
  CHECK(doc["tools"]["exec"]["p50_us"] == bound_of(2000));
  CHECK(doc["tools"]["read_file"]["errors"] == 0);
  CHECK(doc["gauges"]["sessions_live"] == 4);
  CHECK(doc["gauges"]["provider_queue"] == 2);
}

TEST_CASE("empty figures still render every section") {
  auto doc = json::parse(render_json({}, {}));
  CHECK(doc["actors"].is_object());
  CHECK(doc["tools"].is_object());
  CHECK(doc["gauges"].is_object());
  CHECK(doc["turns"]["by_outcome"].is_object());
  CHECK(doc["provider"]["calls_ok"] == 0);
  CHECK(doc["provider"]["p99_us"] == 0);
}

TEST_CASE("the Prometheus rendering has typed families and labelled lines") {
  auto text = render_prometheus(busy_figures(), {12.5, 4096, 3});
  CHECK(has_line(text, "# TYPE nanobot_uptime_seconds gauge"));
  CHECK(has_line(text, "nanobot_uptime_seconds 12.5"));
  CHECK(has_line(text, "nanobot_resident_memory_bytes 4096"));
  CHECK(has_line(text, "nanobot_threads 3"));
  CHECK(has_line(text, "# TYPE nanobot_actors_live gauge"));
  CHECK(has_line(text, "nanobot_actors_live{kind=\"session\"} 1"));
  CHECK(has_line(text, "# TYPE nanobot_actor_messages_handled_total counter"));
  CHECK(has_line(text, "nanobot_actor_messages_handled_total{kind=\"session\"} 4"));
  CHECK(has_line(text, "nanobot_actor_mailbox_high{kind=\"session\"} 7"));
  CHECK(has_line(text, "nanobot_actor_errors_total{kind=\"session\"} 1"));
  REQUIRE(bound_of(5000) == 5792);
  CHECK(has_line(text, "# TYPE nanobot_actor_handling_seconds summary"));
  CHECK(has_line(text, "nanobot_actor_handling_seconds{kind=\"session\","
                       "quantile=\"0.99\"} 0.005792"));
  CHECK(has_line(text, "nanobot_actor_handling_seconds_count{kind=\"session\"} 4"));
  CHECK(count_of(text, "nanobot_actor_handling_seconds_sum") == 0);
  CHECK(has_line(text, "nanobot_turns_total{outcome=\"completed\"} 1"));
  CHECK(has_line(text, "# TYPE nanobot_turn_seconds summary"));
  CHECK(has_line(text, "nanobot_turn_seconds_sum 0.00205"));
  CHECK(has_line(text, "nanobot_turn_seconds_count 2"));
  CHECK(has_line(text, "# TYPE nanobot_turn_state_seconds summary"));
  CHECK(has_line(text, "nanobot_turn_state_seconds_count{state=\"RUN\"} 2"));
  CHECK(has_line(text, "nanobot_turn_state_seconds_sum{state=\"RUN\"} 0.0018"));
  CHECK(has_line(text, "nanobot_provider_latency_seconds_sum 0.13"));
  CHECK(has_line(text, "nanobot_provider_latency_seconds_count 2"));
  CHECK(has_line(text, "nanobot_tool_seconds_sum{tool=\"exec\"} 0.006"));
  CHECK(has_line(text, "nanobot_tool_seconds_count{tool=\"exec\"} 2"));
  CHECK(has_line(text, "nanobot_provider_calls_total{result=\"ok\"} 1"));
  CHECK(has_line(text, "nanobot_provider_calls_total{result=\"failed\"} 1"));
  CHECK(has_line(text, "nanobot_provider_attempts_total 6"));
  CHECK(has_line(text, "nanobot_provider_tokens_total{type=\"total\"} 16"));
  CHECK(has_line(text, "nanobot_tool_calls_total{tool=\"exec\"} 2"));
  CHECK(has_line(text, "nanobot_tool_errors_total{tool=\"exec\"} 1"));
  CHECK(has_line(text, "# TYPE nanobot_sessions_live gauge"));
  CHECK(has_line(text, "nanobot_sessions_live 4"));
  CHECK(has_line(text, "nanobot_provider_queue 2"));
  // Every family is announced exactly once, HELP before TYPE.
  CHECK(count_of(text, "# TYPE nanobot_actors_live ") == 1);
  CHECK(count_of(text, "# HELP ") == count_of(text, "# TYPE "));
  CHECK(text.back() == '\n');
}

TEST_CASE("Prometheus label values and gauge names are escaped") {
  stats_figures f;
  add_sample(f, tool_sample{"we\"ird\\tool\n", false, 10});
  add_sample(f, gauge_sample{"queue.depth-now", 5});
  add_sample(f, gauge_sample{"threads", 1});
  auto text = render_prometheus(f, {});
  CHECK(has_line(text, "nanobot_tool_calls_total{tool=\"we\\\"ird\\\\tool\\n\"} 1"));
  CHECK(has_line(text, "nanobot_queue_depth_now 5"));
  // A gauge that would reopen a built-in family gets its own name.
  CHECK(count_of(text, "# TYPE nanobot_threads ") == 1);
  CHECK(has_line(text, "nanobot_runtime_threads 1"));
}

TEST_CASE("runtime gauges follow the Prometheus naming conventions") {
  auto inbox = prometheus_gauge_for("inbox_appended");
  CHECK(inbox.family == "inbox_appended_total");
  CHECK(std::string{inbox.type} == "counter");
  auto live = prometheus_gauge_for("sessions_live");
  CHECK(live.family == "sessions_live");
  CHECK(std::string{live.type} == "gauge");
  auto rebuilds = prometheus_gauge_for("workspace_rebuilds_work");
  CHECK(rebuilds.family == "workspace_rebuilds_total");
  REQUIRE(rebuilds.labels.size() == 1);
  CHECK(rebuilds.labels[0].second == "work");
  auto tokens = prometheus_gauge_for("usage.evaluator.cron.prompt_tokens");
  CHECK(tokens.family == "evaluator_tokens_total");
  REQUIRE(tokens.labels.size() == 2);
  CHECK(tokens.labels[0].second == "cron");
  CHECK(tokens.labels[1].second == "prompt");
  CHECK(prometheus_gauge_for("usage.evaluator.cron.calls").family
        == "evaluator_calls_total");
  CHECK(prometheus_gauge_for("tool_wait_p99_ms").family
        == "tool_wait_p99_seconds");
  CHECK(prometheus_gauge_for("memory_search_p50_us").family
        == "memory_search_p50_seconds");

  stats_figures f;
  add_sample(f, gauge_sample{"tool_wait_p99_ms", 250});
  add_sample(f, gauge_sample{"memory_search_p50_us", 1500});
  add_sample(f, gauge_sample{"workspace_rebuilds_main", 3});
  add_sample(f, gauge_sample{"workspace_rebuilds_work", 1});
  auto text = render_prometheus(f, {});
  CHECK(has_line(text, "nanobot_tool_wait_p99_seconds 0.25"));
  CHECK(has_line(text, "nanobot_memory_search_p50_seconds 0.0015"));
  // Both agents' samples sit in one family.
  CHECK(count_of(text, "# TYPE nanobot_workspace_rebuilds_total counter") == 1);
  CHECK(has_line(text, "nanobot_workspace_rebuilds_total{agent=\"main\"} 3"));
  CHECK(has_line(text, "nanobot_workspace_rebuilds_total{agent=\"work\"} 1"));
}

TEST_CASE("promtool finds nothing to criticise in the rendering") {
  auto f = busy_figures();
  // Every runtime gauge the gateway reports today, with made-up values.
  for (auto name :
       {"inbox_live", "inbox_bytes", "inbox_appended", "inbox_fsyncs",
        "inbox_duplicates", "inbox_refused", "schedules_owner",
        "subagents_running", "subagents_started", "subagents_failed",
        "provider_inflight", "browser_pages_open",
        "browser_chromium_rss_bytes", "browser_requests_blocked",
        "workspace_rebuilds_main", "workspace_file_reads_main",
        "memory_chunks", "memory_index_bytes", "memory_embed_calls",
        "memory_embed_failures", "memory_searches", "memory_search_p50_us",
        "tool_queue", "tool_workers_busy", "tool_wait_p50_ms",
        "tool_wait_p99_ms", "tool_wait_max_ms",
        "usage.evaluator.heartbeat.calls",
        "usage.evaluator.heartbeat.prompt_tokens",
        "usage.evaluator.heartbeat.completion_tokens",
        "usage.evaluator.heartbeat.total_tokens", "threads"})
    add_sample(f, gauge_sample{name, 3});
  add_sample(f, turn_sample{"completed", {}, 10, "work"});
  auto said = test::promtool_check(render_prometheus(f, {1.5, 4096, 3}));
  if (!said) {
    MESSAGE("promtool is not installed: check skipped");
    return;
  }
  CHECK(*said == "");
}

TEST_CASE("process figures come from proc") {
  auto p = read_process_figures();
  CHECK(p.rss_bytes > 1024 * 1024);
  CHECK(p.threads >= 1);
  CHECK(p.uptime_s >= 0);
  CHECK(p.uptime_s < 3600);
}

TEST_CASE("provider tokens are kept per answering model and add up") {
  stats_figures f;
  auto call = [&](std::string model, int64_t p, int64_t c, int64_t cached) {
    provider_sample s;
    s.provider = "custom";
    s.model = std::move(model);
    s.ok = true;
    s.attempts = 1;
    s.usage.prompt_tokens = p;
    s.usage.completion_tokens = c;
    s.usage.total_tokens = p + c;
    s.usage.cached_tokens = cached;
    add_sample(f, s);
  };
  call("big", 100, 20, 40);
  call("big", 150, 30, 100);
  call("small", 70, 7, 0);
  auto doc = json::parse(render_json(f, {}));
  auto& p = doc["provider"];
  CHECK(p["prompt_tokens"] == 320);
  CHECK(p["cached_tokens"] == 140);
  CHECK(p["by_model"]["big"]["calls"] == 2);
  CHECK(p["by_model"]["big"]["prompt_tokens"] == 250);
  CHECK(p["by_model"]["big"]["completion_tokens"] == 50);
  CHECK(p["by_model"]["big"]["cached_tokens"] == 140);
  CHECK(p["by_model"]["big"]["total_tokens"] == 300);
  CHECK(p["by_model"]["small"]["calls"] == 1);
  CHECK(p["by_model"]["small"]["total_tokens"] == 77);
  auto text = render_prometheus(f, {1, 1, 1});
  CHECK(has_line(text, "nanobot_provider_tokens_total{type=\"cached\"} 140"));
  CHECK(has_line(text, "nanobot_provider_model_tokens_total{model=\"big\","
                       "type=\"prompt\"} 250"));
  CHECK(has_line(text, "nanobot_provider_model_calls_total{model=\"small\"} 1"));
}
