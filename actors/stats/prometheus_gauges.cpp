#include "actors/stats/prometheus_gauges.hpp"

#include <array>
#include <string_view>

namespace nb {

namespace {

// Gauges whose owners report a count that only grows (since the process
// started): on /metrics they are counters.
constexpr std::array<std::string_view, 10> running_counts{
  "inbox_appended",    "inbox_fsyncs",          "inbox_duplicates",
  "inbox_refused",     "subagents_started",     "subagents_failed",
  "browser_requests_blocked", "memory_embed_calls", "memory_embed_failures",
  "memory_searches"};

// Per-agent running counts reported as "<prefix><agent>".
constexpr std::array<std::string_view, 2> per_agent_counts{
  "workspace_rebuilds_", "workspace_file_reads_"};

std::string sanitized(const std::string& raw) {
  std::string out;
  for (char c : raw) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  return out;
}

/// usage.evaluator.<source>.<field>: the notification gate's model use.
bool evaluator_usage(const std::string& raw, prometheus_gauge& g) {
  static const std::string prefix = "usage.evaluator.";
  auto dot = raw.rfind('.');
  if (!raw.starts_with(prefix) || dot < prefix.size())
    return false;
  auto source = raw.substr(prefix.size(), dot - prefix.size());
  auto field = raw.substr(dot + 1);
  g.type = "counter";
  g.labels = {{"source", source}};
  if (field == "calls") {
    g.family = "evaluator_calls_total";
    g.help = "Notification gate model calls, by source.";
    return true;
  }
  if (field.ends_with("_tokens")) {
    g.family = "evaluator_tokens_total";
    g.help = "Notification gate tokens, by source and type.";
    g.labels.emplace_back("type", field.substr(0, field.size() - 7));
    return true;
  }
  return false;
}

} // namespace

prometheus_gauge prometheus_gauge_for(const std::string& raw) {
  prometheus_gauge g;
  if (evaluator_usage(raw, g))
    return g;
  g = {};
  for (auto prefix : per_agent_counts)
    if (raw.size() > prefix.size() && raw.starts_with(prefix)) {
      g.family = std::string{prefix} + "total";
      g.type = "counter";
      g.help = "Running count reported by the runtime, by agent.";
      g.labels = {{"agent", raw.substr(prefix.size())}};
      return g;
    }
  for (auto name : running_counts)
    if (raw == name) {
      g.family = sanitized(raw) + "_total";
      g.type = "counter";
      g.help = "Running count reported by the runtime.";
      return g;
    }
  g.family = sanitized(raw);
  if (g.family.ends_with("_ms") || g.family.ends_with("_us")) {
    g.scale = g.family.ends_with("_ms") ? 1e-3 : 1e-6;
    g.family.replace(g.family.size() - 3, 3, "_seconds");
  }
  return g;
}

} // namespace nb
