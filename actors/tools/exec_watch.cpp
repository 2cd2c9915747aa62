#include "actors/tools/exec_watch.hpp"

#include <algorithm>

#include <caf/event_based_actor.hpp>

#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/tools/exec_sessions.hpp"
#include "actors/tools/stop_with.hpp"

namespace nb {

namespace {

using watch_ptr = exec_watch_actor::stateful_pointer<exec_watch_state>;

// A cancelled call that has not started within this long never will (its
// turn is long over); a cap keeps a flood of stops from growing the list.
constexpr auto early_ttl = std::chrono::minutes(15);
constexpr size_t early_cap = 4096;

std::string early_key(const std::string& session, const std::string& call) {
  return session + '\n' + call;
}

void prune(exec_watch_state& st) {
  auto now = std::chrono::steady_clock::now();
  while (!st.early.empty()
         && (st.early.size() > early_cap
             || now - st.early.front().second > early_ttl))
    st.early.pop_front();
}

// The session manager, spawned on first use; it ends with the watch.
exec_sessions_actor session_manager(watch_ptr self) {
  auto& st = self->state;
  if (!st.sessions) {
    auto full = self->spawn<caf::detached>(exec_sessions_impl, st.limits);
    stop_with(self, full);
    st.sessions = caf::actor_cast<exec_sessions_actor>(full);
  }
  return st.sessions;
}

// Kills the running execs `c` names (all of the session when it names
// none); with `with_sessions`, a session-wide cancel ends its background
// sessions too.
void cancel_calls(watch_ptr self, cancel_tools c, bool with_sessions = true) {
  auto& st = self->state;
  prune(st);
  std::vector<bool> found(c.call_ids.size(), false);
  int killed = 0;
  for (auto& [addr, r] : st.live) {
    if (r.session_key != c.session_key)
      continue;
    auto at = std::find(c.call_ids.begin(), c.call_ids.end(), r.call_id);
    if (!c.call_ids.empty() && at == c.call_ids.end())
      continue;
    if (at != c.call_ids.end())
      found[static_cast<size_t>(at - c.call_ids.begin())] = true;
    self->send(r.canceller, cancel_turn_atom::value);
    ++killed;
  }
  // Calls not running yet (queued in a lane) are refused when they
  // register.
  auto now = std::chrono::steady_clock::now();
  for (size_t i = 0; i < c.call_ids.size(); ++i)
    if (!found[i])
      st.early.emplace_back(early_key(c.session_key, c.call_ids[i]), now);
  if (killed > 0)
    log::get("tools")->info("[{}] stopping {} running command(s)",
                            c.session_key, killed);
  // The whole session stops: its background commands end too.
  if (with_sessions && c.call_ids.empty() && st.sessions)
    self->send(st.sessions, std::move(c));
}

} // namespace

exec_watch_actor::behavior_type exec_watch_impl(watch_ptr self,
                                                exec_session_limits limits) {
  self->state.limits = limits;
  self->set_down_handler([self](caf::down_msg& dm) {
    self->state.live.erase(dm.source);
  });
  // Told to stop (the tools front ends at shutdown): every running command has
  // its process group killed, so no worker thread outlives the process
  // waiting for a child, and no child outlives the gateway.
  self->set_exit_handler([self](caf::exit_msg& em) {
    for (auto& [addr, r] : self->state.live)
      self->send(r.canceller, cancel_turn_atom::value);
    self->quit(em.reason);
  });
  return {
    [self](watch_exec& w) -> bool {
      auto& st = self->state;
      prune(st);
      auto key = early_key(w.session_key, w.call_id);
      auto hit = std::find_if(st.early.begin(), st.early.end(),
                              [&](auto& e) { return e.first == key; });
      if (hit != st.early.end()) {
        st.early.erase(hit);
        return true;
      }
      self->monitor(w.canceller);
      st.live[w.canceller.address()]
        = {std::move(w.session_key), std::move(w.call_id), w.canceller};
      return false;
    },
    [self](cancel_tools& c) { cancel_calls(self, std::move(c)); },
    guard("exec_watch",
          [self](exec_stop_atom, std::string& key) -> caf::result<int32_t> {
            // /stop: the running commands die, and the background
            // sessions, which are counted.
            auto& st = self->state;
            cancel_calls(self, cancel_tools{key, {}}, false);
            if (!st.sessions)
              return int32_t{0};
            return self->delegate(st.sessions, exec_stop_atom::value,
                                  std::move(key));
          }),
    guard("exec_watch",
          [self](exec_session_start& rq) -> caf::result<exec_session_poll> {
            return self->delegate(session_manager(self), std::move(rq));
          }),
    guard("exec_watch",
          [self](exec_session_write& rq) -> caf::result<exec_session_poll> {
            if (!self->state.sessions) {
              exec_session_poll p;
              p.error = "Error: exec session not found: '" + rq.id + "'";
              return p;
            }
            return self->delegate(self->state.sessions, std::move(rq));
          }),
    guard("exec_watch",
          [self](exec_session_list& rq)
            -> caf::result<std::vector<exec_session_info>> {
            if (!self->state.sessions)
              return std::vector<exec_session_info>{};
            return self->delegate(self->state.sessions, std::move(rq));
          }),
  };
}

} // namespace nb
