// Mid-turn behaviour through the real actor tree: /stop and /status are
// answered while a turn runs, plain messages are injected into the running
// turn between model calls, and a stopped turn leaves a legal transcript.
#include <doctest/doctest.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include <caf/scoped_actor.hpp>

#include "actors/store/session_files.hpp"
#include "actors/supervisor/runtime.hpp"
#include "tests/integration/gateway_fixture.hpp"
#include "tests/integration/harness.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

using midturn_gateway = gateway_fixture;

void send(midturn_gateway& gw, caf::scoped_actor& from, const std::string& text) {
  inbound_msg in;
  in.channel = "test";
  in.sender_id = "tester";
  in.chat_id = "mid";
  in.content = text;
  in.reply_to = caf::actor_cast<outbound_sink>(from);
  from->send(gw.rt->router(), std::move(in));
}

/// The next final reply `self` receives (deltas and progress are skipped);
/// "<timeout>" when none came.
std::string next_final(caf::scoped_actor& self,
                       std::chrono::milliseconds timeout = 30s) {
  std::string out;
  bool done = false;
  while (!done)
    self->receive(
      [&](outbound_msg& m) {
        if (m.kind == outbound_kind::final_reply) {
          out = m.content;
          done = true;
        }
      },
      caf::after(timeout) >> [&] {
        out = "<timeout>";
        done = true;
      });
  return out;
}

/// Waits until `self` sees a progress line (a tool started).
bool wait_progress(caf::scoped_actor& self) {
  bool seen = false, timed_out = false;
  while (!seen && !timed_out)
    self->receive(
      [&](outbound_msg& m) { seen = m.kind == outbound_kind::progress; },
      caf::after(30s) >> [&] { timed_out = true; });
  return seen;
}

fake_response sleep_call(int seconds) {
  return tool_calls({call("sleepy", "exec",
                          json{{"command", "sleep " + std::to_string(seconds)}})});
}

} // namespace

TEST_CASE("stop during a long tool call returns at once and keeps a legal transcript") {
  midturn_gateway gw;
  gw.llm.push(sleep_call(30));
  caf::scoped_actor user{gw.rt->system()};
  caf::scoped_actor stopper{gw.rt->system()};
  send(gw, user, "run the long job");
  REQUIRE(wait_progress(user));
  std::this_thread::sleep_for(200ms);
  auto t0 = std::chrono::steady_clock::now();
  send(gw, stopper, "/STOP");
  auto answer = next_final(stopper);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
              std::chrono::steady_clock::now() - t0).count();
  std::cout << "[midturn] /stop answered in " << ms << " ms\n";
  CHECK(answer == "Stopped 1 task(s).");
  CHECK(ms < 3000); // the issue asks for one second; generous on a busy box
  CHECK(next_final(user) == "Stopped before finishing.");
  auto msgs = session_messages(gw.cfg, "test:mid");
  REQUIRE(msgs.size() == 3);
  CHECK(msgs[0]["content"] == "run the long job");
  CHECK(msgs[1]["tool_calls"][0]["id"] == "sleepy");
  CHECK(msgs[2]["role"] == "tool");
  CHECK(msgs[2]["tool_call_id"] == "sleepy");
  CHECK(msgs[2]["content"].get<std::string>().find("interrupted")
        != std::string::npos);
  // The session goes on, and the model sees the stopped call answered.
  send(gw, user, "are you there?");
  CHECK(next_final(user).rfind("echo: are you there?", 0) == 0);
  auto last = gw.llm.requests().back().body["messages"].dump();
  CHECK(last.find("interrupted") != std::string::npos);
  // With nothing running, /stop says so.
  send(gw, stopper, "/stop");
  CHECK(next_final(stopper) == "No active task to stop.");
}

TEST_CASE("stop during a model call cuts the call instead of letting it run on") {
  midturn_gateway gw;
  // A model that starts answering and never finishes (pings keep the
  // connection alive, so only the client leaving ends it).
  auto endless = stream_text({"thinking"});
  endless.events.resize(2);
  endless.stall = true;
  endless.ping_every = 50ms;
  gw.llm.push(endless);
  caf::scoped_actor user{gw.rt->system()};
  caf::scoped_actor stopper{gw.rt->system()};
  send(gw, user, "write me a novel");
  for (int i = 0; i < 3000 && gw.llm.active() == 0; ++i)
    std::this_thread::sleep_for(10ms);
  REQUIRE(gw.llm.active() == 1);
  send(gw, stopper, "/stop");
  CHECK(next_final(stopper) == "Stopped 1 task(s).");
  CHECK(next_final(user) == "Stopped before finishing.");
  // The provider hung up: the model is no longer generating for nobody.
  for (int i = 0; i < 1000 && gw.llm.active() > 0; ++i)
    std::this_thread::sleep_for(10ms);
  CHECK(gw.llm.active() == 0);
  CHECK(gw.llm.request_count() == 1);
  send(gw, user, "a haiku then");
  CHECK(next_final(user).rfind("echo: a haiku then", 0) == 0);
}

TEST_CASE("status is answered while a turn runs without waiting for it") {
  midturn_gateway gw;
  auto slow = text("finally done");
  slow.delay = 3000ms;
  gw.llm.push(slow);
  caf::scoped_actor user{gw.rt->system()};
  caf::scoped_actor asker{gw.rt->system()};
  send(gw, user, "take your time");
  while (gw.llm.request_count() == 0)
    std::this_thread::sleep_for(10ms);
  send(gw, asker, "/status@nanobot_bot");
  auto status = next_final(asker, 2500ms);
  CHECK(status.find("Model: test-model") != std::string::npos);
  CHECK(status.find("1 active") != std::string::npos);
  CHECK(status.find("test:mid") != std::string::npos);
  CHECK(next_final(user) == "finally done");
  // /history and unknown commands are answered mid-turn too, never queued.
  send(gw, asker, "/history 2");
  CHECK(next_final(asker).find("👤 You: take your time") != std::string::npos);
}

TEST_CASE("a message sent during a tool call is injected into the running turn") {
  midturn_gateway gw;
  gw.llm.push(sleep_call(1));
  gw.llm.push(text("did both"));
  caf::scoped_actor user{gw.rt->system()};
  caf::scoped_actor other{gw.rt->system()};
  send(gw, user, "start the job");
  REQUIRE(wait_progress(user));
  send(gw, other, "and also water the plants");
  CHECK(next_final(user) == "did both");
  CHECK(next_final(other) == "did both"); // its caller hears the answer too
  REQUIRE(gw.llm.request_count() == 2);
  auto second = gw.llm.requests()[1].body["messages"];
  auto& last = second[second.size() - 1];
  CHECK(last["role"] == "user");
  CHECK(last["content"] == "and also water the plants");
  CHECK(second[second.size() - 2]["role"] == "tool");
  auto msgs = session_messages(gw.cfg, "test:mid");
  REQUIRE(msgs.size() == 5);
  CHECK(msgs[3]["content"] == "and also water the plants");
  CHECK(msgs[4]["content"] == "did both");
}

TEST_CASE("new during a turn stops it and starts fresh afterwards") {
  midturn_gateway gw;
  gw.llm.push(sleep_call(30));
  caf::scoped_actor user{gw.rt->system()};
  caf::scoped_actor other{gw.rt->system()};
  send(gw, user, "long job");
  REQUIRE(wait_progress(user));
  send(gw, other, "/new");
  CHECK(next_final(other) == "New session started.");
  CHECK(next_final(user) == "Stopped before finishing.");
  CHECK(session_messages(gw.cfg, "test:mid").empty());
}

TEST_CASE("an injected message is on disk before the turn ends and saved once in order") {
  midturn_gateway gw;
  // A metadata key someone else owns must survive the rewrite at SAVE.
  auto dir = *resolve_sessions_dir(gw.cfg);
  REQUIRE(!replace_session(dir, "test:mid", R"({"kept":"yes"})", {}));
  gw.llm.push(sleep_call(1));
  auto slow = text("did both");
  slow.delay = 3000ms; // the second model call: the turn is still running
  gw.llm.push(slow);
  caf::scoped_actor user{gw.rt->system()};
  caf::scoped_actor other{gw.rt->system()};
  send(gw, user, "start the job");
  REQUIRE(wait_progress(user));
  send(gw, other, "and also water the plants");
  for (int i = 0; i < 3000 && gw.llm.request_count() < 2; ++i)
    std::this_thread::sleep_for(10ms);
  REQUIRE(gw.llm.request_count() == 2);
  // Mid-turn: the injected message was appended before the model call.
  auto during = session_messages(gw.cfg, "test:mid");
  REQUIRE(during.size() == 2);
  CHECK(during[0]["content"] == "start the job");
  CHECK(during[1]["role"] == "user");
  CHECK(during[1]["content"] == "and also water the plants");
  CHECK(during[1].contains("timestamp"));
  CHECK(next_final(user) == "did both");
  CHECK(next_final(other) == "did both");
  // After SAVE: every message once, in the transcript's order.
  auto msgs = session_messages(gw.cfg, "test:mid");
  REQUIRE(msgs.size() == 5);
  CHECK(msgs[0]["content"] == "start the job");
  CHECK(msgs[1]["tool_calls"][0]["id"] == "sleepy");
  CHECK(msgs[2]["role"] == "tool");
  CHECK(msgs[3]["content"] == "and also water the plants");
  CHECK(msgs[3]["timestamp"] == during[1]["timestamp"]);
  CHECK(msgs[4]["content"] == "did both");
  auto snap = load_session(dir, "test:mid");
  REQUIRE(snap);
  CHECK(json::parse(snap->metadata_json).value("kept", "") == "yes");
  // The next turn appends after the rewritten file, and replays it.
  send(gw, user, "next one");
  CHECK(next_final(user).rfind("echo: next one", 0) == 0);
  auto after = session_messages(gw.cfg, "test:mid");
  REQUIRE(after.size() == 7);
  CHECK(after[5]["content"] == "next one");
  auto replayed = gw.llm.requests().back().body["messages"].dump();
  CHECK(replayed.find("and also water the plants") != std::string::npos);
}
