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

/// The same figures in the Prometheus text exposition format 0.0.4. Every
/// family is prefixed "nanobot_" and has # HELP and # TYPE lines; times are
/// in seconds; percentiles are gauges with a quantile="0.5"/"0.99" label.
/// A gauge sample named N becomes the family nanobot_N (characters outside
/// [A-Za-z0-9_] replaced by '_').
std::string render_prometheus(const stats_figures& f,
                              const process_figures& p);

/// A Prometheus label value with backslash, double quote and newline
/// escaped (format 0.0.4), for anyone adding labelled samples.
std::string prometheus_label_value(const std::string& v);

} // namespace nb
