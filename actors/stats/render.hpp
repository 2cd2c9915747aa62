// Renders the aggregated figures as the /stats JSON document and as
// Prometheus text. Pure functions: the same figures give the same text.
#pragma once

#include <string>

#include "actors/stats/figures.hpp"
#include "actors/stats/process.hpp"

namespace nb {

/// The /stats document. Field names are stable (times in µs, from the
/// merged histograms, so percentiles are bucket upper bounds):
///   {"uptime_s", "rss_bytes", "threads",
///    "actors": {KIND: {"live", "spawned", "quit", "handled",
///                      "mailbox_high", "p50_us", "p99_us", "errors"}},
///    "turns": {"count", "p50_us", "p99_us", "by_outcome": {OUTCOME: n},
///              "states": {STATE: {"count", "total_us", "p50_us",
///                                 "p99_us"}}},
///    "provider": {"calls_ok", "calls_failed", "attempts", "p50_us",
///                 "p99_us", "prompt_tokens", "completion_tokens",
///                 "total_tokens"},
///    "tools": {NAME: {"calls", "errors", "p50_us", "p99_us"}},
///    "gauges": {NAME: value}}
std::string render_json(const stats_figures& f, const process_figures& p);

/// The same figures in the Prometheus text exposition format 0.0.4,
/// clean under `promtool check metrics`. Every family is prefixed
/// "nanobot_" and has # HELP and # TYPE lines; counters end in _total;
/// times are in seconds. Durations are summaries: quantile="0.5"/"0.99"
/// (bucket upper bounds), _sum and _count (actor handling times have no
/// _sum: actors report bucket counts only). Runtime gauges are named by
/// prometheus_gauge_for (actors/stats/prometheus_gauges.hpp); one that
/// would reopen a built-in family becomes nanobot_runtime_<name>.
std::string render_prometheus(const stats_figures& f,
                              const process_figures& p);

/// A Prometheus label value with backslash, double quote and newline
/// escaped (format 0.0.4), for anyone adding labelled samples.
std::string prometheus_label_value(const std::string& v);

} // namespace nb
