// How a runtime gauge (a gauge_sample's name and value, as /stats shows it)
// is named and typed on /metrics, following Prometheus conventions: running
// counts are counters ending in _total, times are in seconds, an agent or
// source carried in the name becomes a label. Pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nb {

/// One runtime gauge as a Prometheus sample.
struct prometheus_gauge {
  std::string family; ///< without the "nanobot_" prefix
  const char* type = "gauge"; ///< "gauge" or "counter"
  const char* help = "Current value reported by the runtime.";
  std::vector<std::pair<std::string, std::string>> labels;
  double scale = 1; ///< the value is multiplied by it (µs/ms -> seconds)
};

/// The sample for the runtime gauge `raw`:
///  - running counts (inbox_appended, subagents_started, memory_searches,
///    ...) become counters named <raw>_total;
///  - workspace_rebuilds_<agent> and workspace_file_reads_<agent> become
///    workspace_rebuilds_total / workspace_file_reads_total{agent};
///  - usage.evaluator.<source>.calls becomes
///    evaluator_calls_total{source}, usage.evaluator.<source>.<type>_tokens
///    evaluator_tokens_total{source,type};
///  - a name ending in _ms or _us ends in _seconds, its value scaled;
///  - characters outside [A-Za-z0-9_] become '_'.
prometheus_gauge prometheus_gauge_for(const std::string& raw);

} // namespace nb
