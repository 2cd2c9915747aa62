#include "actors/session/session_recall.hpp"

#include <cstdio>

#include "actors/common/find_memory.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/session/session_steps.hpp"

namespace nb {

namespace {

constexpr auto recall_timeout = std::chrono::seconds(3);
constexpr auto command_timeout = std::chrono::seconds(30);

std::string mode_text(const memory_hits& h) {
  return h.note.empty() ? h.mode : h.mode + " (" + h.note + ")";
}

/// Whether turn `turn_no` still runs and waits for its recall.
bool recall_awaited(const session_state& st, int turn_no) {
  return st.turn && st.turn_number == turn_no && st.turn->recall_pending;
}

void recall_done(session_pointer self) {
  auto& st = self->state;
  st.turn->recall_pending = false;
  if (auto then = std::move(st.turn->after_recall)) {
    st.turn->after_recall = nullptr;
    guarded(self, then);
  }
}

std::string format_hits(const memory_hits& hits) {
  if (hits.hits.empty())
    return "🗂 No memories match.";
  std::string out = "🗂 Memories (" + mode_text(hits) + "):";
  for (auto& h : hits.hits) {
    char score[16];
    std::snprintf(score, sizeof score, "%.2f", h.score);
    out += "\n#" + std::to_string(h.id) + " [" + h.category + ", " + h.date
           + ", " + h.source + ":" + std::to_string(h.line_start) + ", "
           + score + "] " + h.text;
  }
  return out;
}

std::string format_figures(const memory_figures& f) {
  auto p50 = f.search_p50_us >= 1000
               ? std::to_string(f.search_p50_us / 1000) + " ms"
               : std::to_string(f.search_p50_us) + " µs";
  return "\n🗂 Memory: " + std::to_string(f.chunks) + " chunks ("
         + std::to_string(f.embedded) + " with vectors), index "
         + std::to_string(f.index_bytes / 1024) + " KiB, "
         + std::to_string(f.embed_calls) + " embedding call(s), search p50 "
         + p50 + ", " + f.mode + (f.note.empty() ? "" : " — " + f.note);
}

} // namespace

void start_recall(session_pointer self) {
  auto& st = self->state;
  auto memory = find_memory(self->system());
  auto text = st.turn->message.content;
  if (!memory || st.turn->message.channel == "system"
      || text.find_first_not_of(" \t\r\n") == std::string::npos)
    return;
  memory_query q;
  q.workspace = st.cfg.workspace;
  q.query = text.size() > 2000 ? text.substr(0, 2000) : text;
  q.recall = true;
  st.turn->recall_pending = true;
  auto turn_no = st.turn_number;
  timed_request(self, memory, recall_timeout, std::move(q))
    .then(
      [=](memory_hits& hits) {
        auto& st = self->state;
        if (!recall_awaited(st, turn_no))
          return;
        st.memory_mode = mode_text(hits);
        for (auto& h : hits.hits)
          st.turn->recalled += "\n- [" + h.category + ", " + h.date + ", #"
                               + std::to_string(h.id) + "] " + h.text;
        recall_done(self);
      },
      [=](caf::error& err) {
        auto& st = self->state;
        if (!recall_awaited(st, turn_no))
          return;
        st.log->warn("[{}] [T{}] memory recall skipped: {}", st.key,
                     st.turn_number, render(self, err));
        recall_done(self);
      });
}

void after_recall(session_pointer self, std::function<void()> then) {
  if (!self->state.turn->recall_pending) {
    then();
    return;
  }
  self->state.turn->after_recall = std::move(then);
}

void add_recall(session_pointer self, std::string& runtime_block) {
  auto& recalled = self->state.turn->recalled;
  if (recalled.empty())
    return;
  static const std::string close = "\n[/Runtime Context]";
  auto at = runtime_block.rfind(close);
  if (at == std::string::npos)
    at = runtime_block.size();
  runtime_block.insert(at, "\nRecalled memories (may be outdated; "
                           "memory_search finds more):"
                             + recalled);
}

bool wants_memory(const parsed_command& cmd) {
  return cmd.name == "/memory" || cmd.name == "/stats";
}

void with_memory_text(session_pointer self, const parsed_command& cmd,
                      std::function<void(std::string)> then) {
  auto memory = find_memory(self->system());
  auto& st = self->state;
  auto failed = [=](caf::error& err) {
    then("🗂 Memory is unavailable: " + render(self, err));
  };
  if (!memory) {
    then(cmd.name == "/stats" ? std::string{}
                              : "🗂 Memory is not running in this process.");
    return;
  }
  if (cmd.name == "/stats") {
    timed_request(self, memory, command_timeout, memory_stats_atom::value,
                  st.cfg.workspace)
      .then([=](memory_figures& f) { then(format_figures(f)); }, failed);
    return;
  }
  if (cmd.args.empty()) {
    then("Usage: /memory <what to look for>");
    return;
  }
  memory_query q;
  q.workspace = st.cfg.workspace;
  q.query = cmd.args;
  q.k = 5;
  timed_request(self, memory, command_timeout, std::move(q))
    .then([=](memory_hits& hits) { then(format_hits(hits)); }, failed);
}

} // namespace nb
