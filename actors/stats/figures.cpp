#include "actors/stats/figures.hpp"

#include <algorithm>
#include <cmath>

namespace nb {

void latency_histogram::add(int64_t micros) {
  ++counts[static_cast<size_t>(latency_bucket(micros))];
  ++total;
  sum_us += micros;
}

void latency_histogram::merge(const std::vector<int64_t>& buckets) {
  has_sum = false;
  for (size_t i = 0; i < buckets.size(); ++i) {
    auto n = buckets[i];
    if (n <= 0)
      continue;
    counts[std::min(i, counts.size() - 1)] += n;
    total += n;
  }
}

int64_t latency_histogram::quantile(double q) const {
  if (total == 0)
    return 0;
  // The rank of the sample that splits the distribution at q (1-based).
  auto rank = static_cast<int64_t>(std::ceil(q * static_cast<double>(total)));
  rank = std::clamp<int64_t>(rank, 1, total);
  int64_t seen = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    seen += counts[i];
    if (seen >= rank)
      return latency_bucket_bound(static_cast<int>(i));
  }
  return latency_bucket_bound(latency_buckets - 1);
}

void add_sample(stats_figures& f, const actor_sample& s) {
  auto& k = f.actors[s.kind];
  k.spawned += s.spawned;
  k.quit += s.quit;
  k.handled += s.handled;
  k.errors += s.errors;
  k.mailbox_high = std::max(k.mailbox_high, s.mailbox_high);
  k.handling.merge(s.latency_hist);
}

namespace {

agent_figures& agent_of(stats_figures& f, const std::string& agent) {
  return f.agents[agent.empty() ? "main" : agent];
}

} // namespace

void add_sample(stats_figures& f, const turn_sample& s) {
  auto outcome = s.outcome.empty() ? "unknown" : s.outcome;
  ++f.turns.by_outcome[outcome];
  ++agent_of(f, s.agent).turns[outcome];
  f.turns.total.add(s.total_us);
  for (const auto& t : s.trace) {
    auto& st = f.turns.states[to_string(t.state)];
    ++st.count;
    st.total_us += t.duration_us;
    st.time.add(t.duration_us);
  }
}

void add_sample(stats_figures& f, const provider_sample& s) {
  auto& p = f.provider;
  ++(s.ok ? p.calls_ok : p.calls_failed);
  p.attempts += s.attempts;
  p.prompt_tokens += s.usage.prompt_tokens;
  p.completion_tokens += s.usage.completion_tokens;
  p.total_tokens += s.usage.total_tokens;
  p.cached_tokens += s.usage.cached_tokens;
  p.latency.add(s.latency_us);
  auto& a = agent_of(f, s.agent);
  ++(s.ok ? a.provider_calls_ok : a.provider_calls_failed);
  a.total_tokens += s.usage.total_tokens;
  auto& m = p.by_model[s.model.empty() ? "unknown" : s.model];
  ++m.calls;
  m.prompt_tokens += s.usage.prompt_tokens;
  m.completion_tokens += s.usage.completion_tokens;
  m.cached_tokens += s.usage.cached_tokens;
  m.total_tokens += s.usage.total_tokens;
}

void add_sample(stats_figures& f, const tool_sample& s) {
  auto& t = f.tools[s.name.empty() ? "unknown" : s.name];
  ++t.calls;
  if (s.is_error)
    ++t.errors;
  t.duration.add(s.duration_us);
  auto& a = agent_of(f, s.agent);
  ++a.tool_calls;
  if (s.is_error)
    ++a.tool_errors;
}

void add_sample(stats_figures& f, const gauge_sample& s) {
  f.gauges[s.name] = s.value;
}

} // namespace nb
