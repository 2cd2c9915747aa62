#include "actors/memory_index/memory_directory.hpp"

#include <algorithm>

#include <caf/actor_registry.hpp>
#include <caf/send.hpp>

#include "actors/common/own_timer.hpp"
#include "actors/memory_index/memory_index.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

/// Whether the index of `ws` still has vectors to compute (as it last
/// reported): it keeps running until they are done.
bool still_embedding(memory_directory_pointer self, const std::string& ws) {
  auto it = self->state.figures.find(ws);
  return it != self->state.figures.end() && it->second.mode == "hybrid"
         && it->second.embedded < it->second.chunks;
}

/// Ends the indexes unused for idle_limit (issue 22: idle threads exit).
/// The index is unlinked and sent an exit as an ordinary message, behind
/// everything already in its mailbox, so it answers what it was handed
/// before it ends; a request arriving meanwhile starts a fresh index on
/// the same file, which SQLite's locking (WAL, busy timeout) keeps safe.
void retire_idle_indexes(memory_directory_pointer self) {
  auto& st = self->state;
  auto now = std::chrono::steady_clock::now();
  for (auto it = st.indexes.begin(); it != st.indexes.end();) {
    auto used = st.last_use.find(it->first);
    bool idle = used == st.last_use.end() || now - used->second >= st.idle_limit;
    if (!idle || still_embedding(self, it->first)) {
      ++it;
      continue;
    }
    auto idx = caf::actor_cast<caf::actor>(it->second);
    self->unlink_from(idx);
    caf::anon_send(idx, caf::exit_msg{self->address(),
                                      caf::exit_reason::user_shutdown});
    st.last_use.erase(it->first);
    it = st.indexes.erase(it);
  }
}

/// One clock entry at a time while indexes run, due when the least
/// recently used one's limit is up; an index kept because it still
/// computes vectors is looked at again a quarter limit later.
void arm_retire_idle(memory_directory_pointer self) {
  auto& st = self->state;
  if (st.retire_armed || st.indexes.empty())
    return;
  auto now = std::chrono::steady_clock::now();
  auto due = now + st.idle_limit;
  for (auto& [ws, idx] : st.indexes)
    if (auto used = st.last_use.find(ws); used != st.last_use.end())
      due = std::min(due, used->second + st.idle_limit);
  due = std::max(due, now + st.idle_limit / 4);
  st.retire_armed = true;
  run_at(self, due, [self] {
    self->state.retire_armed = false;
    retire_idle_indexes(self);
    arm_retire_idle(self);
  });
}

/// The index of `workspace`, started on first use; null with `error` set
/// when the workspace is not a usable path.
memory_index_actor index_for(memory_directory_pointer self,
                             const std::string& workspace, caf::error& error) {
  auto& st = self->state;
  if (workspace.empty() || workspace.front() != '/'
      || workspace.find('\0') != std::string::npos) {
    error = caf::make_error(errc::invalid_arguments,
                            "memory: the workspace must be an absolute path");
    return {};
  }
  auto ws = workspace;
  while (ws.size() > 1 && ws.back() == '/')
    ws.pop_back();
  st.last_use[ws] = std::chrono::steady_clock::now();
  if (auto it = st.indexes.find(ws); it != st.indexes.end())
    return it->second;
  memory::index_options opts;
  opts.workspace = ws;
  opts.settings = st.mem;
  if (st.embed.usable())
    opts.embeddings = st.embed.endpoint;
  else
    opts.embed_problem = st.embed.problem;
  auto idx = self->spawn<caf::detached>(memory_index_impl, std::move(opts),
                                        caf::actor_cast<memory_directory_actor>(
                                          self),
                                        st.stats);
  // Linked: the indexes stop with the directory (the exit handler below
  // keeps the directory running when one index fails).
  self->link_to(idx);
  st.indexes.emplace(ws, idx);
  arm_retire_idle(self);
  return idx;
}

void publish(memory_directory_pointer self) {
  auto& st = self->state;
  if (!st.stats)
    return;
  int64_t chunks = 0, bytes = 0, calls = 0, failures = 0, searches = 0,
          p50 = 0;
  for (auto& [ws, f] : st.figures) {
    chunks += f.chunks;
    bytes += f.index_bytes;
    calls += f.embed_calls;
    failures += f.embed_failures;
    searches += f.searches;
    p50 = std::max(p50, f.search_p50_us);
  }
  for (auto& [name, value] :
       {std::pair<const char*, int64_t>{"memory_chunks", chunks},
        {"memory_index_bytes", bytes},
        {"memory_embed_calls", calls},
        {"memory_embed_failures", failures},
        {"memory_searches", searches},
        {"memory_search_p50_us", p50}})
    self->send(st.stats, gauge_sample{name, value});
}

} // namespace

memory_directory_actor::behavior_type
memory_directory_impl(memory_directory_pointer self, settings cfg,
                      memory_settings mem, stats_actor stats,
                      std::chrono::milliseconds idle_limit) {
  auto& st = self->state;
  st.idle_limit = std::max(idle_limit, std::chrono::milliseconds(1));
  st.mem = mem;
  st.embed = memory::choose_embeddings(cfg, mem);
  st.stats = stats;
  st.meter.start(self, "memory", std::move(stats));
  self->set_exit_handler([self](caf::exit_msg& msg) {
    auto& idx = self->state.indexes;
    for (auto it = idx.begin(); it != idx.end(); ++it)
      if (it->second.address() == msg.source) {
        // That index failed: the next request starts a fresh one.
        self->state.last_use.erase(it->first);
        idx.erase(it);
        return;
      }
    self->quit(msg.reason);
  });
  // Every request goes to its workspace's index, which answers directly.
  auto forward = [self](auto answer_type, std::string ws, auto&&... xs)
    -> caf::result<decltype(answer_type)> {
    auto t = self->state.meter.measure();
    caf::error err;
    auto idx = index_for(self, ws, err);
    if (!idx)
      return err;
    return self->delegate(idx, std::forward<decltype(xs)>(xs)...);
  };
  return {
    [=](memory_query& q) -> caf::result<memory_hits> {
      if (q.recall && (!self->state.mem.recall || self->state.mem.recall_k <= 0))
        return memory_hits{{}, "off", "agents.defaults.memory.recall is off",
                           0};
      return forward(memory_hits{}, q.workspace, std::move(q));
    },
    [=](memory_save_request& rq) -> caf::result<std::string> {
      return forward(std::string{}, rq.workspace, std::move(rq));
    },
    [=](memory_forget_request& rq) -> caf::result<std::string> {
      return forward(std::string{}, rq.workspace, std::move(rq));
    },
    [=](memory_stats_atom a, std::string& ws) -> caf::result<memory_figures> {
      return forward(memory_figures{}, ws, a, ws);
    },
    [=](memory_reindex_atom a,
        std::string& ws) -> caf::result<memory_figures> {
      return forward(memory_figures{}, ws, a, ws);
    },
    [self](memory_figures& f) {
      self->state.figures[f.workspace] = std::move(f);
      publish(self);
    },
  };
}

memory_directory_actor spawn_memory_directory(
  caf::actor_system& sys, const settings& cfg, const memory_settings& mem,
  stats_actor stats, const std::string& warm,
  std::chrono::milliseconds idle_limit) {
  auto dir = sys.spawn(memory_directory_impl, cfg, mem, std::move(stats),
                       idle_limit);
  sys.registry().put(memory_atom::value,
                     caf::actor_cast<caf::strong_actor_ptr>(dir));
  if (mem.embeddings.enabled() && !warm.empty())
    caf::anon_send(dir, memory_stats_atom::value, warm);
  return dir;
}

void stop_memory_directory(caf::actor_system& sys) {
  auto dir = sys.registry().get(memory_atom::value);
  if (!dir)
    return;
  sys.registry().erase(memory_atom::value);
  caf::anon_send_exit(dir, caf::exit_reason::user_shutdown);
}

} // namespace nb
