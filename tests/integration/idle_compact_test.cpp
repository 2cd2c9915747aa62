// Idle compaction through the real router, sessions, store, provider and
// tools, with the scripted LLM on 127.0.0.1: a chat left alone longer than
// the idle limit is archived in the background on the idle tick, without
// another message; a running turn is never archived; no limit, no archive.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <caf/all.hpp>

#include "actors/memory/history_file.hpp"
#include "actors/provider/provider.hpp"
#include "actors/router/router.hpp"
#include "actors/stats/stats.hpp"
#include "actors/store/session_files.hpp"
#include "actors/store/session_store.hpp"
#include "actors/tools/tools_front.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/system_fixture.hpp"

namespace {

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;
using json = nlohmann::json;

/// The actor tree without channels; the session's idle clock is scaled
/// down through its config (the idle tick every 20 ms).
struct tree {
  system_fixture fx;
  temp_home home;
  fake_llm llm;
  settings cfg;
  stats_actor stats;
  store_actor store;
  provider_actor provider;
  tools_actor tools;
  router_actor router;

  explicit tree(std::chrono::milliseconds idle_after,
                std::chrono::seconds quit_after = std::chrono::hours(1)) {
    cfg = settings_for(home, llm);
    // Summaries fail, so the raw archive shows exactly what was archived.
    llm.set_responder([](const json& body) {
      if (body["messages"].dump().find("<conversation>") != std::string::npos)
        return error(400, "no summaries here");
      return fake_llm::echo(body);
    });
    stats = spawn_stats(fx.sys);
    store = spawn_store(fx.sys, *resolve_sessions_dir(cfg), 2, stats);
    provider = spawn_provider(fx.sys, cfg, stats);
    tools = spawn_tools(fx.sys, cfg, stats);
    auto scfg = make_session_config(cfg);
    scfg.idle_compact_after = idle_after;
    scfg.idle_compact_check = 20ms;
    scfg.idle = quit_after;
    session_services svc{store, provider, tools, stats, {}, {}};
    router = fx.sys.spawn(router_impl, scfg, svc, agent_plan{});
  }

  ~tree() {
    for (auto a : {caf::actor_cast<caf::actor>(router),
                   caf::actor_cast<caf::actor>(tools),
                   caf::actor_cast<caf::actor>(provider),
                   caf::actor_cast<caf::actor>(store),
                   caf::actor_cast<caf::actor>(stats)})
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }

  std::string ws() const { return cfg.workspace_path(); }

  chat_reply say(const std::string& text) {
    return chat(fx.sys, router, "test", "idle", text);
  }

  size_t mark() const {
    auto snap = load_session(*resolve_sessions_dir(cfg), "test:idle");
    auto meta = json::parse(snap ? snap->metadata_json : "{}", nullptr, false);
    return meta.is_object() ? meta.value("last_consolidated", size_t{0}) : 0;
  }

  int32_t live_sessions() {
    caf::scoped_actor self{fx.sys};
    int32_t n = -1;
    self->request(router, 10s, live_sessions_atom::value)
      .receive([&](int32_t v) { n = v; }, [](caf::error&) {});
    return n;
  }

  /// Waits up to 30 s for the session file's mark to reach `n`.
  size_t wait_mark(size_t n) {
    for (int i = 0; i < 1500 && mark() < n; ++i)
      std::this_thread::sleep_for(20ms);
    return mark();
  }

  /// Waits up to 30 s for `n` history entries.
  std::vector<history_entry> wait_entries(size_t n) {
    for (int i = 0; i < 1500 && read_history(ws()).size() < n; ++i)
      std::this_thread::sleep_for(20ms);
    return read_history(ws());
  }
};

/// The echo fake answers "echo: <text>" plus the runtime block.
bool echoed(const chat_reply& r, const std::string& text) {
  return r.content.rfind("echo: " + text, 0) == 0;
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos;
       p = hay.find(needle, p + 1))
    ++n;
  return n;
}

size_t count(const std::vector<history_entry>& all, const std::string& s) {
  size_t n = 0;
  for (auto& e : all)
    n += count(e.content, s);
  return n;
}

} // namespace

TEST_CASE("an idle chat is archived on the idle tick without a new message") {
  tree t{300ms};
  REQUIRE(echoed(t.say("first thought"), "first thought"));
  REQUIRE(echoed(t.say("second thought"), "second thought"));
  // No further message: the idle tick archives both turns (in one go, or
  // two when this loaded machine paused between them).
  REQUIRE(t.wait_mark(4) == 4);
  auto all = read_history(t.ws());
  REQUIRE(all.size() >= 1);
  CHECK(all[0].session_key == "test:idle");
  CHECK(all[0].content.rfind("[RAW] ", 0) == 0);
  CHECK(count(all, "USER: first thought") == 1);
  CHECK(count(all, "USER: second thought") == 1);
  CHECK(count(all, "ASSISTANT: echo: second thought") == 1);
  // The session file keeps every message; more idle ticks add nothing.
  CHECK(session_messages(t.cfg, "test:idle").size() == 4);
  auto entries = all.size();
  std::this_thread::sleep_for(500ms);
  CHECK(read_history(t.ws()).size() == entries);
  // The next turn is archived on its own, once.
  REQUIRE(echoed(t.say("third thought"), "third thought"));
  REQUIRE(t.wait_mark(6) == 6);
  all = read_history(t.ws());
  CHECK(all.size() == entries + 1);
  CHECK(count(all, "third thought") == 2); // the user's and the echo
  CHECK(count(all, "USER: first thought") == 1);
}

TEST_CASE("a running turn is not archived until it has ended") {
  tree t{100ms};
  t.llm.push(tool_calls({call("c1", "exec", json{{"command", "sleep 1"}})}));
  t.llm.push(text("slept well"));
  REQUIRE(t.say("take a nap").content == "slept well");
  auto all = t.wait_entries(1);
  REQUIRE(all.size() == 1);
  // One archive with the whole turn, taken after it ended.
  CHECK(all[0].content.rfind("[RAW] 4 messages\n", 0) == 0);
  CHECK(count(all[0].content, "ASSISTANT: slept well") == 1);
  std::this_thread::sleep_for(300ms);
  CHECK(read_history(t.ws()).size() == 1);
}

TEST_CASE("without an idle limit nothing is archived") {
  tree t{0ms};
  REQUIRE(echoed(t.say("keep this"), "keep this"));
  std::this_thread::sleep_for(500ms);
  CHECK(read_history(t.ws()).empty());
  CHECK(t.mark() == 0);
}

TEST_CASE("an idle session quits once its turns are archived") {
  tree t{200ms, 1s};
  REQUIRE(echoed(t.say("short visit"), "short visit"));
  REQUIRE(t.wait_mark(2) == 2);
  for (int i = 0; i < 1500 && t.live_sessions() != 0; ++i)
    std::this_thread::sleep_for(20ms);
  CHECK(t.live_sessions() == 0);
  CHECK(read_history(t.ws()).size() == 1);
  // Back from disk: the mark holds, nothing is archived twice.
  REQUIRE(echoed(t.say("back again"), "back again"));
  REQUIRE(t.wait_mark(4) == 4);
  auto all = read_history(t.ws());
  CHECK(all.size() == 2);
  CHECK(count(all, "short visit") == 2);
  CHECK(count(all, "back again") == 2);
}
