// The heartbeat end to end: the real router, sessions, store, provider,
// tools and evaluator, with a scripted OpenAI-compatible server on
// 127.0.0.1 and a test outbox standing in for the channels.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <caf/all.hpp>

#include "actors/evaluator/evaluator.hpp"
#include "actors/heartbeat/heartbeat.hpp"
#include "actors/provider/provider.hpp"
#include "actors/router/router.hpp"
#include "actors/stats/stats.hpp"
#include "actors/store/session_files.hpp"
#include "actors/store/session_store.hpp"
#include "actors/tools/tools_front.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/fake_llm.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/system_fixture.hpp"

namespace {

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;
using json = nlohmann::json;

/// The outbox: keeps what the channels would have sent.
struct outbox_state {
  outbox_state() = default;
  static inline const char* name = "test_outbox";
  std::vector<outbound_msg> got;
};

using outbox_probe = caf::typed_actor<
  caf::reacts_to<outbound_msg>,
  caf::replies_to<caf::get_atom>::with<std::vector<outbound_msg>>>;

outbox_probe::behavior_type
outbox(outbox_probe::stateful_pointer<outbox_state> self) {
  return {
    [=](outbound_msg& m) { self->state.got.push_back(std::move(m)); },
    [=](caf::get_atom) { return self->state.got; },
  };
}

bool is_evaluation(const json& body) {
  return body.contains("tools")
         && body["tools"].dump().find("evaluate_notification")
              != std::string::npos;
}

struct tree {
  system_fixture fx;
  fake_llm llm;
  scratch_dir home;
  settings cfg;
  std::string sessions;
  stats_actor stats;
  store_actor store;
  provider_actor provider;
  tools_actor tools;
  router_actor router;
  evaluator_actor evaluator;
  outbox_probe probe;
  heartbeat_actor heartbeat;

  explicit tree(std::chrono::seconds interval = std::chrono::hours(1)) {
    cfg.config_path = home.at("config.json");
    cfg.agent.workspace = home.at("workspace");
    std::filesystem::create_directories(cfg.agent.workspace);
    cfg.agent.model = "test-model";
    cfg.agent.provider = "custom";
    cfg.providers["custom"].api_base = llm.base_url();
    cfg.channels["telegram"].enabled = true;
    cfg.gateway.heartbeat.keep_recent_messages = 4;
    sessions = *resolve_sessions_dir(cfg);
    stats = spawn_stats(fx.sys);
    store = spawn_store(fx.sys, sessions, 2, stats);
    provider = spawn_provider(fx.sys, cfg, stats);
    tools = spawn_tools(fx.sys, cfg, stats);
    probe = fx.sys.spawn(outbox);
    session_services svc{store, provider, tools, stats,
                         caf::actor_cast<outbound_sink>(probe), {}};
    router = fx.sys.spawn(router_impl, make_session_config(cfg), svc,
                            agent_plan{});
    evaluator = spawn_evaluator(fx.sys, cfg, svc);
    auto hc = make_heartbeat_config(cfg);
    hc.interval = interval;
    heartbeat = spawn_heartbeat(
      fx.sys, hc,
      heartbeat_links{router, store, evaluator, svc.outbox, stats});
  }

  ~tree() {
    for (auto a : {caf::actor_cast<caf::actor>(heartbeat),
                   caf::actor_cast<caf::actor>(evaluator),
                   caf::actor_cast<caf::actor>(router),
                   caf::actor_cast<caf::actor>(tools),
                   caf::actor_cast<caf::actor>(provider),
                   caf::actor_cast<caf::actor>(store),
                   caf::actor_cast<caf::actor>(probe),
                   caf::actor_cast<caf::actor>(stats)})
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }

  void write_heartbeat(const std::string& text) {
    write_all(cfg.agent.workspace + "/HEARTBEAT.md", text);
  }

  /// A chat the user wrote in: a session file on disk.
  void seed_session(const std::string& key) {
    caf::scoped_actor self{fx.sys};
    json m{{"role", "user"}, {"content", "hi"}};
    self->request(store, 10s, session_append{key, {m.dump()}})
      .receive([](caf::ok_atom) {},
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
  }

  std::string beat() {
    caf::scoped_actor self{fx.sys};
    std::string out;
    self->request(heartbeat, 60s, heartbeat_run_atom::value)
      .receive([&](std::string& s) { out = std::move(s); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return out;
  }

  std::vector<outbound_msg> delivered() {
    caf::scoped_actor self{fx.sys};
    std::vector<outbound_msg> out;
    self->request(probe, 10s, caf::get_atom::value)
      .receive([&](std::vector<outbound_msg>& v) { out = std::move(v); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return out;
  }

  size_t heartbeat_session_size() {
    caf::scoped_actor self{fx.sys};
    size_t n = 0;
    self->request(store, 10s, session_load{"heartbeat"})
      .receive([&](session_snapshot& s) { n = s.messages.size(); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
    return n;
  }

  /// The agent's turn answers `answer`; the gate answers `notify`.
  void script(std::string answer, bool notify) {
    llm.set_responder([answer, notify](const json& body) {
      if (is_evaluation(body))
        return tool_calls({call("e1", "evaluate_notification",
                                json{{"should_notify", notify},
                                     {"reason", "scripted"}})});
      return text(answer);
    });
  }
};

constexpr const char* tasks = "# Heartbeat\n\n## Active Tasks\n"
                              "- check whether the parcel arrived\n";

} // namespace

TEST_CASE("a heartbeat without active tasks makes no model request") {
  tree t;
  t.seed_session("telegram:42");
  t.write_heartbeat("# Heartbeat\n\n## Active Tasks\n<!-- - nothing -->\n\n"
                    "## Completed\n- old task\n");
  CHECK(t.beat() == "skipped: no active tasks");
  std::filesystem::remove(t.cfg.agent.workspace + "/HEARTBEAT.md");
  CHECK(t.beat() == "skipped: no HEARTBEAT.md");
  CHECK(t.llm.request_count() == 0);
  CHECK(t.delivered().empty());
}

TEST_CASE("a heartbeat with nobody to tell makes no model request") {
  tree t;
  t.seed_session("cli:direct");
  t.seed_session("discord:9"); // a channel that is not enabled
  t.write_heartbeat(tasks);
  CHECK(t.beat().rfind("skipped: no recently active chat", 0) == 0);
  CHECK(t.llm.request_count() == 0);
}

TEST_CASE("a routine heartbeat result is silenced by the gate") {
  tree t;
  t.seed_session("telegram:42");
  t.write_heartbeat(tasks);
  t.script("All clear.", false);
  CHECK(t.beat() == "silenced (scripted)");
  CHECK(t.delivered().empty());
  auto reqs = t.llm.requests();
  REQUIRE(reqs.size() == 2); // the turn, then the evaluator
  CHECK_FALSE(is_evaluation(reqs[0].body));
  auto turn_text = reqs[0].body["messages"].dump();
  CHECK(turn_text.find("check whether the parcel arrived")
        != std::string::npos);
  CHECK(is_evaluation(reqs[1].body));
  CHECK(reqs[1].body["temperature"] == 0.0);
  auto user = reqs[1].body["messages"][1]["content"].get<std::string>();
  CHECK(user.find("## Agent response\nAll clear.") != std::string::npos);
}

TEST_CASE("an actionable heartbeat result reaches the most recent chat") {
  tree t;
  t.seed_session("telegram:7");
  std::this_thread::sleep_for(20ms); // distinct modification times
  t.seed_session("telegram:42");
  t.seed_session("cli:direct"); // newer, but never a target
  t.write_heartbeat(tasks);
  t.script("Your parcel is at the door.", true);
  CHECK(t.beat() == "delivered to telegram:42");
  auto out = t.delivered();
  REQUIRE(out.size() == 1);
  CHECK(out[0].channel == "telegram");
  CHECK(out[0].chat_id == "42");
  CHECK(out[0].content == "Your parcel is at the door.");
}

TEST_CASE("the gate failing keeps the heartbeat silent") {
  tree t;
  t.seed_session("telegram:42");
  t.write_heartbeat(tasks);
  t.llm.set_responder([](const json& body) {
    if (is_evaluation(body))
      return text("I think the user should know."); // no tool call
    return text("Your parcel is at the door.");
  });
  CHECK(t.beat().rfind("silenced", 0) == 0);
  CHECK(t.delivered().empty());
}

TEST_CASE("the heartbeat session is trimmed to keepRecentMessages") {
  tree t; // keeps 4
  t.seed_session("telegram:42");
  t.write_heartbeat(tasks);
  t.script("All clear.", false);
  for (int k = 0; k < 4; ++k)
    t.beat();
  auto n = t.heartbeat_session_size();
  CHECK(n >= 1);
  CHECK(n <= 4);
}

TEST_CASE("the heartbeat runs on its own timer") {
  tree t{std::chrono::seconds(1)};
  t.seed_session("telegram:42");
  t.write_heartbeat(tasks);
  t.script("Your parcel is at the door.", true);
  std::vector<outbound_msg> out;
  for (int k = 0; k < 150 && out.empty(); ++k) {
    std::this_thread::sleep_for(100ms);
    out = t.delivered();
  }
  REQUIRE_FALSE(out.empty());
  CHECK(out[0].chat_id == "42");
}

TEST_CASE("the message tool cannot bypass the gate during a heartbeat") {
  tree t;
  t.seed_session("telegram:42");
  t.write_heartbeat(tasks);
  // The agent tries to tell the user directly, then answers; the gate says no.
  t.llm.set_responder([](const json& body) {
    if (is_evaluation(body))
      return tool_calls({call("e1", "evaluate_notification",
                              json{{"should_notify", false},
                                   {"reason", "routine"}})});
    if (body["messages"].dump().find("\"role\":\"tool\"") == std::string::npos)
      return tool_calls({call("m1", "message",
                              json{{"content", "Sent behind the gate's back"}})});
    return text("All clear.");
  });
  CHECK(t.beat() == "silenced (routine)");
  CHECK(t.delivered().empty());
  auto reqs = t.llm.requests();
  REQUIRE(reqs.size() == 3); // tool call, answer, gate
  CHECK(reqs[1].body["messages"].dump().find("(not delivered)")
        != std::string::npos);
}
