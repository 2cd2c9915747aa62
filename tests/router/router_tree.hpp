// The router with real sessions, store, provider and tools, and the
// scripted LLM on 127.0.0.1 (no channels): what tests/router drives.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include <caf/all.hpp>

#include "actors/provider/provider.hpp"
#include "actors/router/router.hpp"
#include "actors/stats/stats.hpp"
#include "actors/store/session_files.hpp"
#include "actors/store/session_store.hpp"
#include "actors/tools/tools_front.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/system_fixture.hpp"

namespace nb::test {

/// One answer as the test saw it: the final reply and the actor that sent
/// it (the session of the chat).
struct router_answer {
  std::string content;
  caf::actor_addr session;
  bool timed_out = false;
};

struct router_tree {
  system_fixture fx;
  temp_home home;
  fake_llm llm;
  settings cfg;
  stats_actor stats;
  store_actor store;
  provider_actor provider;
  tools_actor tools;
  router_actor router;

  /// `idle_tick` > 0: a session offers to quit after that long without a
  /// message (the real minimum through config is a second; the session's
  /// own config takes any duration). 0: sessions stay for an hour.
  /// `adjust` changes the sessions' config last (e.g. a short model timeout).
  explicit router_tree(std::chrono::milliseconds idle_tick,
                       std::function<void(session_config&)> adjust = {}) {
    cfg = settings_for(home, llm);
    stats = spawn_stats(fx.sys);
    store = spawn_store(fx.sys, *resolve_sessions_dir(cfg), 2, stats);
    provider = spawn_provider(fx.sys, cfg, stats);
    tools = spawn_tools(fx.sys, cfg, stats);
    auto scfg = make_session_config(cfg);
    if (idle_tick.count() > 0) {
      // Quit at the first tick without a message: the session wakes every
      // min(idle, idle-compaction check), at least 10 ms, and offers once
      // idle that long (whole seconds: under a second, at every 10 ms
      // tick); no compaction is due within the hour.
      scfg.idle = std::chrono::duration_cast<std::chrono::seconds>(idle_tick);
      scfg.idle_compact_after = std::chrono::hours(1);
      scfg.idle_compact_check = idle_tick;
    } else {
      scfg.idle = std::chrono::hours(1);
    }
    if (adjust)
      adjust(scfg);
    session_services svc;
    svc.store = store;
    svc.provider = provider;
    svc.tools = tools;
    svc.stats = stats;
    router = fx.sys.spawn(router_impl, scfg, svc, agent_plan{});
  }

  ~router_tree() {
    for (auto a : {caf::actor_cast<caf::actor>(router),
                   caf::actor_cast<caf::actor>(tools),
                   caf::actor_cast<caf::actor>(provider),
                   caf::actor_cast<caf::actor>(store),
                   caf::actor_cast<caf::actor>(stats)})
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }

  static inbound_msg message(const std::string& chat_id,
                             const std::string& text) {
    inbound_msg in;
    in.channel = "test";
    in.sender_id = "tester";
    in.chat_id = chat_id;
    in.content = text;
    return in;
  }

  /// Waits on `self` for the final reply to what it sent before.
  static router_answer
  await_answer(caf::scoped_actor& self,
               std::chrono::seconds timeout = std::chrono::seconds(30)) {
    router_answer out;
    bool done = false;
    while (!done)
      self->receive(
        [&](outbound_msg& m) {
          if (m.kind != outbound_kind::final_reply)
            return;
          out.content = m.content;
          out.session = self->current_sender()
                          ? self->current_sender()->address()
                          : caf::actor_addr{};
          done = true;
        },
        caf::after(timeout) >>
          [&] {
            out.timed_out = true;
            done = true;
          });
    return out;
  }

  /// Sends `text` in `chat_id` and waits for its answer.
  router_answer say(const std::string& chat_id, const std::string& text) {
    caf::scoped_actor self{fx.sys};
    auto in = message(chat_id, text);
    in.reply_to = caf::actor_cast<outbound_sink>(self);
    self->send(router, std::move(in));
    return await_answer(self);
  }

  int32_t live_sessions() {
    caf::scoped_actor self{fx.sys};
    int32_t n = -1;
    self->request(router, std::chrono::seconds(10), live_sessions_atom::value)
      .receive([&](int32_t v) { n = v; }, [](caf::error&) {});
    return n;
  }

  /// The user messages stored for `chat_id`, in order.
  std::vector<std::string> stored_user_texts(const std::string& chat_id) {
    std::vector<std::string> out;
    for (auto& m : session_messages(cfg, "test:" + chat_id))
      if (m.value("role", "") == "user" && m["content"].is_string())
        out.push_back(m["content"]);
    return out;
  }
};

/// The echo fake answers "echo: <text>" (plus the runtime block).
inline bool echoes(const router_answer& a, const std::string& text) {
  return !a.timed_out && a.content.rfind("echo: " + text, 0) == 0;
}

} // namespace nb::test
