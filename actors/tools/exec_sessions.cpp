#include "actors/tools/exec_sessions.hpp"

#include <algorithm>
#include <cstdio>

#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/tools/text.hpp"

namespace nb {

namespace {

using sessions_ptr =
  exec_sessions_full_actor::stateful_pointer<exec_sessions_state>;
using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

// After the exit, output still in the pipes is read for this long; a
// background child that holds them longer is killed with its group.
constexpr milliseconds exited_drain{250};
// A poll that waited and saw no output yet waits this much longer for it.
constexpr milliseconds output_grace{100};
// Pipes are read this often while a call waits, else less often (a pipe
// holds 64 KiB, so a chatty command only pauses a little between reads).
constexpr milliseconds waiting_tick{20};
constexpr milliseconds quiet_tick{100};

int64_t ms_between(steady::time_point a, steady::time_point b) {
  return std::chrono::duration_cast<milliseconds>(b - a).count();
}

exec_session_poll session_error(std::string text) {
  exec_session_poll p;
  p.error = std::move(text);
  return p;
}

std::string new_session_id(exec_sessions_state& st) {
  static const char* hex = "0123456789abcdef";
  while (true) {
    std::string id;
    auto bits = st.rng();
    for (int i = 0; i < 12; ++i, bits >>= 4)
      id += hex[bits & 0xf];
    if (!st.sessions.count(id))
      return id;
  }
}

// The wait_for search over a new chunk, carrying the end of the text
// already searched so a target split between two reads is found.
void search_chunk(exec_session_waiter& w, int stream, std::string_view data) {
  if (w.wait_for.empty() || w.seen)
    return;
  auto hay = w.overlap[stream];
  hay.append(data);
  if (hay.find(w.wait_for) != std::string::npos) {
    w.seen = true;
    return;
  }
  auto keep = w.wait_for.size() - 1;
  w.overlap[stream] = hay.size() > keep ? hay.substr(hay.size() - keep) : hay;
}

// Whether the command ended and its output has been read.
bool session_finished(const exec_session_entry& s, steady::time_point now) {
  return s.exited
         && (s.proc->output_closed() || now >= s.exited_at + exited_drain);
}

// Reads the pipes, writes queued input, notices the exit and the time
// limit.
void pump(exec_session_entry& s, steady::time_point now) {
  if (!s.exited && s.proc->check_exit()) {
    s.exited = true;
    s.exited_at = now;
  }
  if (!s.exited && s.deadline && now >= *s.deadline) {
    s.proc->kill();
    s.timed_out = true;
    s.exited = true;
    s.exited_at = now;
  }
  s.proc->read_output([&s](int stream, std::string_view data) {
    (stream == 0 ? s.out : s.err).append(data);
    if (s.waiter)
      search_chunk(*s.waiter, stream, data);
  });
  if (!s.exited)
    s.proc->flush_input();
  if (session_finished(s, now))
    s.proc->release();
}

exec_session_poll take_poll(exec_session_entry& s, steady::time_point now) {
  auto& w = *s.waiter;
  exec_session_poll p;
  p.id = s.id;
  auto [out, out_dropped] = s.out.drain();
  auto [err, err_dropped] = s.err.drain();
  auto [text, cut] = join_session_output(out, err, w.max_output);
  p.output = std::move(text);
  p.truncated = out_dropped + err_dropped + cut;
  p.done = session_finished(s, now);
  p.exit_code = p.done ? s.proc->exit_code() : 0;
  p.elapsed_ms = ms_between(s.started, now);
  p.timed_out = s.timed_out;
  p.terminated = w.terminated;
  p.stdin_closed = w.stdin_closed;
  p.wait_seen = w.wait_for.empty() || w.seen;
  return p;
}

// Answers the waiting call; a finished session is forgotten once its end
// was reported.
void answer_waiter(sessions_ptr self,
                   std::map<std::string, exec_session_entry>::iterator it,
                   steady::time_point now) {
  auto& s = it->second;
  auto poll = take_poll(s, now);
  s.waiter->promise.deliver(poll);
  s.waiter.reset();
  s.last_access = now;
  if (poll.done)
    self->state.sessions.erase(it);
}

// Whether the waiting call has what it waited for.
bool waiter_ready(exec_session_entry& s, steady::time_point now) {
  auto& w = *s.waiter;
  if (session_finished(s, now) || w.seen)
    return true;
  if (now < w.until)
    return false;
  if (w.wait_for.empty() && w.yielded && !w.grace_used && s.out.empty()
      && s.err.empty()) {
    w.grace_used = true;
    w.until = now + output_grace;
    return false;
  }
  return true;
}

void arm_tick(sessions_ptr self) {
  auto& st = self->state;
  if (st.tick_pending || st.sessions.empty())
    return;
  bool waiting =
    std::any_of(st.sessions.begin(), st.sessions.end(),
                [](auto& e) { return e.second.waiter.has_value(); });
  st.tick_pending = true;
  self->delayed_send(self, waiting ? waiting_tick : quiet_tick,
                     caf::tick_atom_v);
}

// Ends sessions nobody asked about for the idle limit.
void sweep_idle(sessions_ptr self, steady::time_point now) {
  auto& st = self->state;
  for (auto it = st.sessions.begin(); it != st.sessions.end();) {
    auto& s = it->second;
    if (!s.waiter && now - s.last_access > st.limits.idle) {
      log::get("tools")->info("[{}] exec session {} idle for {} s: ended",
                              s.owner, s.id,
                              ms_between(s.last_access, now) / 1000);
      it = st.sessions.erase(it); // the process goes with it
    } else {
      ++it;
    }
  }
}

void on_tick(sessions_ptr self) {
  auto& st = self->state;
  st.tick_pending = false;
  auto now = steady::now();
  for (auto it = st.sessions.begin(); it != st.sessions.end();) {
    auto next = std::next(it);
    pump(it->second, now);
    if (it->second.waiter && waiter_ready(it->second, now))
      answer_waiter(self, it, now);
    it = next;
  }
  sweep_idle(self, now);
  arm_tick(self);
}

// Parks the call's answer on session `it` until it is ready (at once for
// a zero wait or a finished command).
caf::result<exec_session_poll>
wait_on(sessions_ptr self,
        std::map<std::string, exec_session_entry>::iterator it,
        exec_session_waiter w) {
  auto now = steady::now();
  auto& s = it->second;
  // Output that arrived before this call counts for wait_for too.
  for (int k = 0; k < 2; ++k)
    search_chunk(w, k, (k == 0 ? s.out : s.err).held_text());
  auto promise = self->make_response_promise<exec_session_poll>();
  w.promise = promise;
  s.waiter = std::move(w);
  s.last_access = now;
  pump(s, now);
  if (waiter_ready(s, now))
    answer_waiter(self, it, now);
  arm_tick(self);
  return promise;
}

caf::result<exec_session_poll> start_session(sessions_ptr self,
                                             exec_session_start& rq) {
  auto& st = self->state;
  auto now = steady::now();
  sweep_idle(self, now);
  if (st.sessions.size() >= st.limits.max_sessions)
    return session_error("Error executing command: maximum exec sessions "
                         "reached ("
                         + std::to_string(st.limits.max_sessions) + ")");
  std::string error;
  auto proc = session_process::start(rq.launch, error);
  if (!proc)
    return session_error("Error executing command: " + error);
  auto id = new_session_id(st);
  exec_session_entry s;
  s.id = id;
  s.owner = rq.owner;
  s.command = rq.launch.command;
  s.cwd = rq.launch.cwd;
  s.proc = std::move(proc);
  s.out = bounded_output{st.limits.buffer_bytes};
  s.err = bounded_output{st.limits.buffer_bytes};
  s.started = s.last_access = now;
  if (rq.launch.timeout_s > 0)
    s.deadline = now + std::chrono::seconds(rq.launch.timeout_s);
  log::get("tools")->info("[{}] exec session {} started (pid {}): {}", rq.owner,
                          id, s.proc->pid(), preview(rq.launch.command, 80));
  auto it = st.sessions.emplace(id, std::move(s)).first;
  exec_session_waiter w;
  w.yielded = rq.yield_ms > 0;
  w.until = now + milliseconds(std::max(0, rq.yield_ms));
  w.max_output = static_cast<size_t>(std::max(1, rq.max_output));
  return wait_on(self, it, std::move(w));
}

caf::result<exec_session_poll> write_session(sessions_ptr self,
                                             exec_session_write& rq) {
  auto& st = self->state;
  auto it = st.sessions.find(rq.id);
  if (it == st.sessions.end() || it->second.owner != rq.owner)
    return session_error("Error: exec session not found: '" + rq.id + "'");
  auto& s = it->second;
  auto failed = [](const std::string& why) {
    return session_error("Error writing to exec session: " + why);
  };
  if (s.waiter)
    return failed("another call is already waiting on this session");
  auto now = steady::now();
  pump(s, now);
  exec_session_waiter w;
  if (!rq.chars.empty()) {
    if (s.exited)
      return failed("session has already exited");
    if (auto e = s.proc->write_input(rq.chars); !e.empty())
      return failed(e);
  }
  if (rq.close_stdin) {
    if (s.exited)
      return failed("session has already exited");
    s.proc->close_input();
    w.stdin_closed = true;
  }
  if (rq.terminate) {
    if (!s.exited) {
      s.proc->kill();
      s.exited = true;
      s.exited_at = now;
    }
    w.terminated = true;
  }
  w.wait_for = rq.wait_for;
  auto wait = rq.wait_for.empty() ? rq.yield_ms : rq.wait_timeout_ms;
  w.yielded = rq.wait_for.empty() && rq.yield_ms > 0;
  w.until = now + milliseconds(std::max(0, wait));
  w.max_output = static_cast<size_t>(std::max(1, rq.max_output));
  return wait_on(self, it, std::move(w));
}

std::vector<exec_session_info>
list_owned_sessions(sessions_ptr self, const exec_session_list& rq) {
  std::vector<exec_session_info> out;
  auto now = steady::now();
  for (auto& [id, s] : self->state.sessions) {
    if (s.owner != rq.owner)
      continue;
    exec_session_info i;
    i.id = id;
    i.running = !s.exited;
    i.elapsed_ms = ms_between(s.started, now);
    i.idle_ms = ms_between(s.last_access, now);
    i.remaining_ms =
      s.deadline ? std::max<int64_t>(0, ms_between(now, *s.deadline)) : -1;
    i.cwd = s.cwd;
    i.command = s.command;
    out.push_back(std::move(i));
  }
  return out;
}

// Ends every session of `owner` (/stop, /new, a finished subagent); a call
// waiting on one hears that it was terminated. Returns how many ended.
int32_t end_sessions_of(sessions_ptr self, const std::string& owner) {
  auto& st = self->state;
  auto now = steady::now();
  int32_t n = 0;
  for (auto it = st.sessions.begin(); it != st.sessions.end();) {
    auto next = std::next(it);
    auto& s = it->second;
    if (s.owner == owner) {
      ++n;
      s.proc->kill();
      s.exited = true;
      s.exited_at = now;
      s.proc->release();
      if (s.waiter) {
        s.waiter->terminated = true;
        answer_waiter(self, it, now); // finished: erased there
      } else {
        st.sessions.erase(it);
      }
    }
    it = next;
  }
  if (n > 0)
    log::get("tools")->info("[{}] terminated {} exec session(s)", owner, n);
  return n;
}

} // namespace

exec_session_limits exec_session_limits_of(const exec_settings& exec) {
  exec_session_limits l;
  l.max_sessions = static_cast<size_t>(exec.max_sessions);
  l.idle = std::chrono::seconds(exec.session_idle_timeout_s);
  l.buffer_bytes = static_cast<size_t>(exec.session_buffer_chars);
  return l;
}

exec_sessions_full_actor::behavior_type
exec_sessions_impl(sessions_ptr self, exec_session_limits limits) {
  self->state.limits = limits;
  // Stopping (the tools front ends): calls still waiting are answered, and
  // every process goes with its session.
  self->set_exit_handler([self](caf::exit_msg& em) {
    for (auto& [id, s] : self->state.sessions)
      if (s.waiter)
        s.waiter->promise.deliver(session_error(
          "Error: the gateway is stopping; the session was terminated."));
    self->state.sessions.clear();
    self->quit(em.reason);
  });
  return {
    guard("exec_sessions",
          [self](exec_session_start& rq) -> caf::result<exec_session_poll> {
            return start_session(self, rq);
          }),
    guard("exec_sessions",
          [self](exec_session_write& rq) -> caf::result<exec_session_poll> {
            return write_session(self, rq);
          }),
    guard("exec_sessions",
          [self](exec_session_list& rq) -> std::vector<exec_session_info> {
            return list_owned_sessions(self, rq);
          }),
    guard("exec_sessions",
          [self](cancel_tools& c) {
            if (c.call_ids.empty())
              end_sessions_of(self, c.session_key);
          }),
    guard("exec_sessions",
          [self](exec_stop_atom, const std::string& owner) -> int32_t {
            return end_sessions_of(self, owner);
          }),
    guard("exec_sessions", [self](caf::tick_atom) { on_tick(self); }),
  };
}

} // namespace nb
