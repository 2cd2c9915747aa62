// The running totals behind /stats and /metrics, and how samples fold into
// them. Pure data and functions: no actors, no I/O.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "actors/common/meter.hpp"
#include "messages/stats.hpp"

namespace nb {

/// A latency histogram with the meter's buckets (see latency_bucket()).
struct latency_histogram {
  std::array<int64_t, latency_buckets> counts{};
  int64_t total = 0;
  /// Exact sum (µs) of the times given to add(); merged bucket counts carry
  /// no times, so a histogram filled by merge() has none (see has_sum).
  int64_t sum_us = 0;
  bool has_sum = true;

  void add(int64_t micros);
  /// Adds a meter's bucket counts; extra buckets fold into the last one.
  void merge(const std::vector<int64_t>& buckets);
  /// Upper bound (µs) of the bucket holding quantile `q` (0 < q <= 1);
  /// 0 when empty. Accurate to about 19 %, the bucket width.
  int64_t quantile(double q) const;
};

/// Everything known about one actor kind.
struct actor_kind_figures {
  int64_t spawned = 0;
  int64_t quit = 0;
  int64_t handled = 0;
  int64_t errors = 0;
  int64_t mailbox_high = 0; ///< the largest queue ever seen
  latency_histogram handling;
  int64_t live() const { return spawned - quit; }
};

/// Time spent in one turn state over all turns.
struct turn_state_figures {
  int64_t count = 0;
  int64_t total_us = 0;
  latency_histogram time;
};

struct turn_figures {
  std::map<std::string, int64_t> by_outcome;
  std::map<std::string, turn_state_figures> states; ///< keyed "RUN", ...
  latency_histogram total;
};

/// Token use of one model (the one that answered, fallbacks included).
struct model_usage_figures {
  int64_t calls = 0;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t cached_tokens = 0;
  int64_t total_tokens = 0;
};

struct provider_figures {
  int64_t calls_ok = 0;
  int64_t calls_failed = 0;
  int64_t attempts = 0;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t total_tokens = 0;
  int64_t cached_tokens = 0;
  latency_histogram latency;
  std::map<std::string, model_usage_figures> by_model;
};

struct tool_figures {
  int64_t calls = 0;
  int64_t errors = 0;
  latency_histogram duration;
};

/// What one agent of the gateway did (the `agent` label).
struct agent_figures {
  std::map<std::string, int64_t> turns; ///< by outcome
  int64_t provider_calls_ok = 0;
  int64_t provider_calls_failed = 0;
  int64_t total_tokens = 0;
  int64_t tool_calls = 0;
  int64_t tool_errors = 0;
};

/// All aggregated figures; maps are ordered so renderings are stable.
struct stats_figures {
  std::map<std::string, agent_figures> agents;
  std::map<std::string, actor_kind_figures> actors;
  turn_figures turns;
  provider_figures provider;
  std::map<std::string, tool_figures> tools;
  std::map<std::string, int64_t> gauges;
};

void add_sample(stats_figures& f, const actor_sample& s);
void add_sample(stats_figures& f, const turn_sample& s);
void add_sample(stats_figures& f, const provider_sample& s);
void add_sample(stats_figures& f, const tool_sample& s);
void add_sample(stats_figures& f, const gauge_sample& s);

} // namespace nb
