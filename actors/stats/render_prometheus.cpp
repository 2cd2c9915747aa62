#include "actors/stats/render.hpp"

#include "actors/stats/prometheus_gauges.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace nb {

namespace {

using labels = std::vector<std::pair<std::string, std::string>>;

std::string number(double x) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc{} ? std::string(buf, end) : std::string{"NaN"};
}

std::string seconds(int64_t micros) {
  return number(static_cast<double>(micros) / 1e6);
}

/// Writes families one at a time so each family's samples stay together.
class prom_writer {
public:
  void family(const std::string& name, const char* type, const char* help) {
    current_ = "nanobot_" + name;
    names_.insert(current_);
    out_ += "# HELP " + current_ + ' ' + help + '\n';
    out_ += "# TYPE " + current_ + ' ' + type + '\n';
  }

  void sample(const labels& ls, const std::string& value) {
    sample_of(current_, ls, value);
  }

  void sample(const labels& ls, int64_t value) {
    sample(ls, std::to_string(value));
  }

  /// A summary's samples for one label set: the two quantiles (bucket upper
  /// bounds), then _sum when the times are known, and _count.
  void summary(labels ls, const latency_histogram& h) {
    auto plain = ls;
    ls.emplace_back("quantile", "0.5");
    sample(ls, seconds(h.quantile(0.5)));
    ls.back().second = "0.99";
    sample(ls, seconds(h.quantile(0.99)));
    if (h.has_sum)
      sample_of(current_ + "_sum", plain, seconds(h.sum_us));
    sample_of(current_ + "_count", plain, std::to_string(h.total));
  }

  bool taken(const std::string& name) const {
    return names_.count("nanobot_" + name) > 0;
  }

  std::string str() && { return std::move(out_); }

private:
  void sample_of(const std::string& name, const labels& ls,
                 const std::string& value) {
    out_ += name;
    if (!ls.empty()) {
      out_ += '{';
      for (size_t i = 0; i < ls.size(); ++i) {
        if (i > 0)
          out_ += ',';
        out_ += ls[i].first + "=\""
                + prometheus_label_value(ls[i].second) + '"';
      }
      out_ += '}';
    }
    out_ += ' ' + value + '\n';
  }

  std::string out_;
  std::string current_;
  std::set<std::string> names_;
};

template <class Map, class Fn>
void per_key(prom_writer& w, const Map& m, const char* label,
             const std::string& name, const char* type, const char* help,
             Fn value) {
  if (m.empty())
    return;
  w.family(name, type, help);
  for (const auto& [key, v] : m)
    value(labels{{label, key}}, v);
}

void render_actors(prom_writer& w, const stats_figures& f) {
  using K = actor_kind_figures;
  auto each = [&](const std::string& name, const char* type, const char* help,
                  auto fn) {
    per_key(w, f.actors, "kind", name, type, help,
            [&](const labels& ls, const K& k) { fn(ls, k); });
  };
  each("actors_live", "gauge", "Actors alive, by kind.",
       [&](const labels& ls, const K& k) { w.sample(ls, k.live()); });
  each("actors_spawned_total", "counter", "Actors spawned, by kind.",
       [&](const labels& ls, const K& k) { w.sample(ls, k.spawned); });
  each("actor_messages_handled_total", "counter",
       "Messages handled, by actor kind.",
       [&](const labels& ls, const K& k) { w.sample(ls, k.handled); });
  each("actor_errors_total", "counter", "Failed handlers, by actor kind.",
       [&](const labels& ls, const K& k) { w.sample(ls, k.errors); });
  each("actor_mailbox_high", "gauge",
       "Largest mailbox depth seen, by actor kind.",
       [&](const labels& ls, const K& k) { w.sample(ls, k.mailbox_high); });
  // Actors report bucket counts only, so this summary has no _sum.
  each("actor_handling_seconds", "summary",
       "Message handling time, by actor kind (quantiles are bucket upper "
       "bounds).",
       [&](const labels& ls, const K& k) { w.summary(ls, k.handling); });
}

void render_turns(prom_writer& w, const turn_figures& t) {
  per_key(w, t.by_outcome, "outcome", "turns_total", "counter",
          "Finished turns, by outcome.",
          [&](const labels& ls, int64_t n) { w.sample(ls, n); });
  if (t.total.total > 0) {
    w.family("turn_seconds", "summary", "Turn duration.");
    w.summary({}, t.total);
  }
  using S = turn_state_figures;
  // _count is how often a state was entered, _sum the time spent in it.
  per_key(w, t.states, "state", "turn_state_seconds", "summary",
          "Time spent in each turn state, by state.",
          [&](const labels& ls, const S& s) { w.summary(ls, s.time); });
}

void render_provider(prom_writer& w, const provider_figures& p) {
  w.family("provider_calls_total", "counter", "Model calls, by result.");
  w.sample({{"result", "ok"}}, p.calls_ok);
  w.sample({{"result", "failed"}}, p.calls_failed);
  w.family("provider_attempts_total", "counter",
           "Model call attempts, retries included.");
  w.sample({}, p.attempts);
  w.family("provider_latency_seconds", "summary", "Model call latency.");
  w.summary({}, p.latency);
  w.family("provider_tokens_total", "counter", "Tokens, by type.");
  w.sample({{"type", "prompt"}}, p.prompt_tokens);
  w.sample({{"type", "completion"}}, p.completion_tokens);
  w.sample({{"type", "total"}}, p.total_tokens);
  w.sample({{"type", "cached"}}, p.cached_tokens);
  w.family("provider_model_tokens_total", "counter",
           "Tokens, by the model that answered and type.");
  for (const auto& [model, m] : p.by_model) {
    w.sample({{"model", model}, {"type", "prompt"}}, m.prompt_tokens);
    w.sample({{"model", model}, {"type", "completion"}}, m.completion_tokens);
    w.sample({{"model", model}, {"type", "cached"}}, m.cached_tokens);
  }
  w.family("provider_model_calls_total", "counter",
           "Model calls, by the model that answered.");
  for (const auto& [model, m] : p.by_model)
    w.sample({{"model", model}}, m.calls);
}

void render_tools(prom_writer& w, const stats_figures& f) {
  per_key(w, f.tools, "tool", "tool_calls_total", "counter",
          "Tool calls, by tool.",
          [&](const labels& ls, const tool_figures& t) {
            w.sample(ls, t.calls);
          });
  per_key(w, f.tools, "tool", "tool_errors_total", "counter",
          "Tool calls that failed, by tool.",
          [&](const labels& ls, const tool_figures& t) {
            w.sample(ls, t.errors);
          });
  per_key(w, f.tools, "tool", "tool_seconds", "summary",
          "Tool call duration, by tool.",
          [&](const labels& ls, const tool_figures& t) {
            w.summary(ls, t.duration);
          });
}

/// The same counts split by the agent that ran them.
void render_agents(prom_writer& w, const stats_figures& f) {
  if (f.agents.empty())
    return;
  w.family("agent_turns_total", "counter", "Finished turns, by agent and "
                                           "outcome.");
  for (const auto& [id, a] : f.agents)
    for (const auto& [outcome, n] : a.turns)
      w.sample({{"agent", id}, {"outcome", outcome}}, n);
  w.family("agent_provider_calls_total", "counter",
           "Model calls, by agent and result.");
  for (const auto& [id, a] : f.agents) {
    w.sample({{"agent", id}, {"result", "ok"}}, a.provider_calls_ok);
    w.sample({{"agent", id}, {"result", "failed"}}, a.provider_calls_failed);
  }
  w.family("agent_tokens_total", "counter", "Tokens used, by agent.");
  for (const auto& [id, a] : f.agents)
    w.sample({{"agent", id}}, a.total_tokens);
  w.family("agent_tool_calls_total", "counter", "Tool calls, by agent.");
  for (const auto& [id, a] : f.agents)
    w.sample({{"agent", id}}, a.tool_calls);
  w.family("agent_tool_errors_total", "counter",
           "Tool calls that failed, by agent.");
  for (const auto& [id, a] : f.agents)
    w.sample({{"agent", id}}, a.tool_errors);
}

/// The runtime's gauges, named by prometheus_gauge_for; samples that share
/// a family (one per agent, say) are written together.
void render_gauges(prom_writer& w, const std::map<std::string, int64_t>& g) {
  std::map<std::string, std::vector<std::pair<prometheus_gauge, int64_t>>>
    families;
  for (const auto& [raw, v] : g) {
    auto pg = prometheus_gauge_for(raw);
    // A gauge must not reopen a family written above.
    if (pg.family.empty() || w.taken(pg.family))
      pg.family = "runtime_" + pg.family;
    auto family = pg.family;
    families[family].emplace_back(std::move(pg), v);
  }
  for (const auto& [name, samples] : families) {
    const auto& first = samples.front().first;
    w.family(name, first.type, first.help);
    for (const auto& [pg, v] : samples)
      w.sample(pg.labels, pg.scale == 1 ? std::to_string(v)
                                        : number(static_cast<double>(v)
                                                 * pg.scale));
  }
}

} // namespace

std::string prometheus_label_value(const std::string& v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\' || c == '"')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string render_prometheus(const stats_figures& f,
                              const process_figures& p) {
  prom_writer w;
  w.family("uptime_seconds", "gauge", "Seconds since the process started.");
  w.sample({}, number(std::round(p.uptime_s * 1000) / 1000));
  w.family("resident_memory_bytes", "gauge", "Resident set size.");
  w.sample({}, p.rss_bytes);
  w.family("threads", "gauge", "Threads in the process.");
  w.sample({}, p.threads);
  render_actors(w, f);
  render_turns(w, f.turns);
  render_provider(w, f.provider);
  render_tools(w, f);
  render_agents(w, f);
  render_gauges(w, f.gauges);
  return std::move(w).str();
}

} // namespace nb
