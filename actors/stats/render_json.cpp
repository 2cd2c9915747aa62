#include "actors/stats/render.hpp"

#include <cmath>
#include <utility>

#include <nlohmann/json.hpp>

namespace nb {

namespace {

using json = nlohmann::json;

json percentiles(const latency_histogram& h) {
  return {{"p50_us", h.quantile(0.5)}, {"p99_us", h.quantile(0.99)}};
}

} // namespace

std::string render_json(const stats_figures& f, const process_figures& p) {
  json doc;
  doc["uptime_s"] = std::round(p.uptime_s * 1000) / 1000;
  doc["rss_bytes"] = p.rss_bytes;
  doc["threads"] = p.threads;
  auto& actors = doc["actors"] = json::object();
  for (const auto& [kind, k] : f.actors) {
    json a = {{"live", k.live()},       {"spawned", k.spawned},
              {"quit", k.quit},         {"handled", k.handled},
              {"mailbox_high", k.mailbox_high}, {"errors", k.errors}};
    a.update(percentiles(k.handling));
    actors[kind] = std::move(a);
  }
  json turns = {{"count", f.turns.total.total},
                {"by_outcome", json::object()},
                {"states", json::object()}};
  turns.update(percentiles(f.turns.total));
  for (const auto& [outcome, n] : f.turns.by_outcome)
    turns["by_outcome"][outcome] = n;
  for (const auto& [state, s] : f.turns.states) {
    json st = {{"count", s.count}, {"total_us", s.total_us}};
    st.update(percentiles(s.time));
    turns["states"][state] = std::move(st);
  }
  doc["turns"] = std::move(turns);
  const auto& pr = f.provider;
  json provider = {{"calls_ok", pr.calls_ok},
                   {"calls_failed", pr.calls_failed},
                   {"attempts", pr.attempts},
                   {"prompt_tokens", pr.prompt_tokens},
                   {"completion_tokens", pr.completion_tokens},
                   {"total_tokens", pr.total_tokens},
                   {"cached_tokens", pr.cached_tokens}};
  provider.update(percentiles(pr.latency));
  auto& by_model = provider["by_model"] = json::object();
  for (const auto& [model, m] : pr.by_model)
    by_model[model] = {{"calls", m.calls},
                       {"prompt_tokens", m.prompt_tokens},
                       {"completion_tokens", m.completion_tokens},
                       {"cached_tokens", m.cached_tokens},
                       {"total_tokens", m.total_tokens}};
  doc["provider"] = std::move(provider);
  auto& tools = doc["tools"] = json::object();
  for (const auto& [name, t] : f.tools) {
    json tj = {{"calls", t.calls}, {"errors", t.errors}};
    tj.update(percentiles(t.duration));
    tools[name] = std::move(tj);
  }
  auto& agents = doc["agents"] = json::object();
  for (const auto& [id, a] : f.agents)
    agents[id] = {{"turns", a.turns},
                  {"provider_calls_ok", a.provider_calls_ok},
                  {"provider_calls_failed", a.provider_calls_failed},
                  {"total_tokens", a.total_tokens},
                  {"tool_calls", a.tool_calls},
                  {"tool_errors", a.tool_errors}};
  auto& gauges = doc["gauges"] = json::object();
  for (const auto& [name, v] : f.gauges)
    gauges[name] = v;
  return doc.dump();
}

} // namespace nb
