// Idle compaction in simulated time (CAF's deterministic scheduler): a chat
// left alone is archived into memory once
// agents.defaults.idleCompactAfterMinutes has passed — not a minute before —
// without a new message, and the session's mark moves past what was archived.
// The session, its runner and the archive worker are the real ones; the store
// is the in-memory store temporary chats use, the model a stand-in on the
// provider's interface (tests/support/scripted_model.hpp); the history file is
// real.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/session/session.hpp"
#include "actors/store/memory_store.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/scripted_model.hpp"
#include "tests/support/sim_fixture.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;

namespace {

caf::behavior reply_recorder(caf::event_based_actor*,
                             std::vector<outbound_msg>* got) {
  return {
    [=](outbound_msg& m) {
      if (m.kind == outbound_kind::final_reply)
        got->push_back(std::move(m));
    },
  };
}

size_t history_entries(const std::string& workspace) {
  std::ifstream in{workspace + "/memory/history.jsonl"};
  size_t n = 0;
  for (std::string line; std::getline(in, line);)
    n += !line.empty();
  return n;
}

} // namespace

TEST_CASE("idle compaction in simulated time: a chat left alone is archived "
          "once the idle limit has passed, not a minute before") {
  sim_fixture sim;
  scratch_dir ws;
  settings s;
  s.agent.model = "base-model";
  auto cfg = make_session_config(s);
  cfg.workspace = ws.path;
  cfg.idle = std::chrono::hours(2); // the session stays for the test
  cfg.idle_compact_after = 15min;
  cfg.idle_compact_check = 60s;
  session_services svc;
  svc.store = sim.sys.spawn(memory_store_impl);
  auto model = sim.sys.spawn(scripted_model);
  svc.provider = model;
  auto session = sim.sys.spawn(session_impl, std::string{"test:chat"}, cfg, svc,
                               router_actor{});
  std::vector<outbound_msg> replies;
  auto user = sim.sys.spawn(reply_recorder, &replies);
  inbound_msg in;
  in.channel = "test";
  in.chat_id = "chat";
  in.sender_id = "tester";
  in.content = "my cat is called Miso";
  in.reply_to = caf::actor_cast<outbound_sink>(user);
  caf::anon_send(session, in);
  sim.run();
  REQUIRE(replies.size() == 1);
  CHECK(replies[0].content == "echo: my cat is called Miso");
  CHECK(history_entries(ws.path) == 0);

  sim.advance(14min);
  CHECK(history_entries(ws.path) == 0); // not idle long enough
  sim.advance(61s);                     // the first check after 15 minutes
  CHECK(history_entries(ws.path) == 1);
  auto history = read_all(ws.path + "/memory/history.jsonl");
  CHECK(history.find("Miso") != std::string::npos); // the summary's echo
  // Nothing new to archive: later checks write nothing more.
  sim.advance(30min);
  CHECK(history_entries(ws.path) == 1);

  for (auto a : {caf::actor_cast<caf::actor>(session),
                 caf::actor_cast<caf::actor>(model),
                 caf::actor_cast<caf::actor>(svc.store),
                 caf::actor_cast<caf::actor>(user)})
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  sim.run();
}
