// Sustained goals end to end: a browser chat on a real gateway (WebSocket,
// durable inbox, session files) with the scripted model. /goal lets the
// model record a goal; while it is active a final answer is followed,
// within the turn, by a message carrying the goal on (up to the turn's
// iteration limit), and a turn cut at that limit queues a continuation
// turn through the inbox, up to 12 per goal; update_goal, /stop and the
// limits end them; a goal turn has no LLM wall clock and skips the summary
// call at its iteration limit when a continuation follows. What the goal is in the session (replayed to a browser, read
// from the original's file) is goal_session_e2e_test.cpp's.
#include <set>

#include <doctest/doctest.h>

#include "tests/websocket/goal_rig.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("goal: a final answer with the goal active carries the turn on "
          "until update_goal ends it") {
  auto gw = goal_gateway();
  gw.llm.push(create_call("Count to three, one number per answer."));
  gw.llm.push(text("one"));
  gw.llm.push(text("two"));
  gw.llm.push(tool_calls(
    {call("g2", "update_goal",
          {{"action", "complete"}, {"recap", "counted to three"}})}));
  gw.llm.push(text("three, done"));
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat = ready_chat(c);
  say(c, chat, "/goal count to three");
  auto evs = read_turns(c, 1); // one turn: the goal went on within it
  CHECK(answers(evs) == std::vector<std::string>{"three, done"});

  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 5);
  // The /goal turn: the task as typed, the guidance, the tools.
  auto first = last_user(reqs[0]);
  CHECK(first.starts_with("/goal count to three"));
  CHECK(first.find("[Goal Runtime Guidance") != std::string::npos);
  CHECK(has(tool_names(reqs[0]), "create_goal"));
  CHECK(has(tool_names(reqs[0]), "update_goal"));
  CHECK(
    reqs[1].body["messages"].back()["content"].get<std::string>().starts_with(
      "Goal recorded. Keep working toward the objective"));
  // Each answer while the goal is active is followed by the message that
  // carries the goal on, naming it; the next request ends with both.
  for (size_t i : {2, 3}) {
    auto& msgs = reqs[i].body["messages"];
    REQUIRE(msgs.size() >= 2);
    CHECK(msgs[msgs.size() - 2]
          == json{{"role", "assistant"}, {"content", i == 2 ? "one" : "two"}});
    CHECK(msgs.back()["role"] == "user");
    CHECK(msgs.back()["content"]
          == in_turn_continuation("Count to three, one number per answer."));
    CHECK(has(tool_names(reqs[i]), "update_goal")); // tools as usual
  }
  // update_goal ended the goal: its answer ended the turn.
  CHECK(
    reqs[4].body["messages"].back()["content"].get<std::string>().starts_with(
      "Goal marked complete ("));

  // The WebUI's events: the goal strip, the turn's end, the run state.
  auto states = of_kind(evs, "goal_state");
  REQUIRE(states.size() == 2);
  CHECK(states[0]["goal_state"]["active"] == true);
  CHECK(states[0]["goal_state"]["objective"]
        == "Count to three, one number per answer.");
  CHECK(states[0]["goal_state"]["ui_summary"] == "count");
  CHECK(states[1]["goal_state"] == json{{"active", false}});
  auto ends = of_kind(evs, "turn_end");
  REQUIRE(ends.size() == 1);
  CHECK(ends[0]["goal_state"] == json{{"active", false}});
  auto status = of_kind(evs, "goal_status");
  REQUIRE(status.size() == 2);
  CHECK(status[0]["status"] == "running");
  CHECK(status[0]["started_at"].is_number());
  CHECK(status[1]["status"] == "idle");

  // No more turns: the next one is the user's.
  ping(gw, c, chat, 5);
  CHECK(gw.llm.requests().size() == 6);

  // The goal as the original stores it, and the transcript in the
  // original's shapes: the answers and the carry-on messages in order,
  // each carry-on a plain user message (role, content, timestamp).
  auto key = "websocket:" + chat;
  auto meta = file_meta(gw, key);
  auto& g = meta["goal_state"];
  CHECK(g["status"] == "completed");
  CHECK(g["objective"] == "Count to three, one number per answer.");
  CHECK(g["recap"] == "counted to three");
  CHECK(g["completed_at"] == g["ended_at"]);
  CHECK(g["started_at"].get<std::string>().size() == 26);
  CHECK_FALSE(meta.contains("_sustained_goal_continuation_rounds"));
  auto saved = file_messages(gw, key);
  std::vector<std::string> shape;
  for (auto& m : saved) {
    auto role = m.value("role", "");
    shape.push_back(m.contains("tool_calls") ? "calls" : role);
    if (role == "user"
        && m.value("content", "").starts_with("A sustained goal is still")) {
      CHECK(m["content"]
            == in_turn_continuation("Count to three, one number per answer."));
      std::set<std::string> keys;
      for (auto& [k, v] : m.items())
        keys.insert(k);
      CHECK(keys == std::set<std::string>{"role", "content", "timestamp"});
    }
  }
  CHECK(shape
        == std::vector<std::string>{"user", "calls", "tool", "assistant",
                                    "user", "assistant", "user", "calls",
                                    "tool", "assistant", "user",
                                    "assistant"});
  CHECK(saved[3]["content"] == "one");
  CHECK(saved[9]["content"] == "three, done");
}

TEST_CASE("goal: without an active goal a final answer ends the turn") {
  auto gw = goal_gateway();
  gw.llm.push(text("hello"));
  // A goal the turn blocks is no longer active: no carry-on either.
  gw.llm.push(create_call("Publish the post."));
  gw.llm.push(tool_calls(
    {call("g2", "update_goal",
          {{"action", "block"}, {"recap", "no credentials"}})}));
  gw.llm.push(text("blocked: no credentials"));
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat = ready_chat(c);
  say(c, chat, "hi");
  CHECK(answers(read_turns(c, 1)) == std::vector<std::string>{"hello"});
  CHECK(gw.llm.requests().size() == 1);
  say(c, chat, "/goal publish the post");
  CHECK(answers(read_turns(c, 1))
        == std::vector<std::string>{"blocked: no credentials"});
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 4);
  CHECK(reqs[3].body["messages"].back()["role"] == "tool");
  ping(gw, c, chat, 4);
  CHECK(file_meta(gw, "websocket:" + chat)["goal_state"]["status"]
        == "blocked");
}

TEST_CASE(
  "goal: create_goal is refused outside /goal and /goal alone is usage") {
  auto gw = goal_gateway();
  gw.llm.push(tool_calls({call("g1", "create_goal", {{"objective", "x"}})}));
  gw.llm.push(text("I cannot"));
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat = ready_chat(c);
  say(c, chat, "/goal");
  auto usage = read_turns(c, 1);
  CHECK(answers(usage)
        == std::vector<std::string>{
          "Usage: /goal <long-running task description>"});
  say(c, chat, "make it a goal");
  auto evs = read_turns(c, 1);
  CHECK(answers(evs) == std::vector<std::string>{"I cannot"});
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(last_user(reqs[0]).find("[Goal Runtime Guidance") == std::string::npos);
  CHECK(reqs[1].body["messages"].back()["content"]
        == "Error: create_goal is unavailable for this turn. Ask the user to "
           "submit the complete objective as `/goal <task>`.\n\n[Analyze the "
           "error above and try a different approach.]");
  CHECK_FALSE(file_meta(gw, "websocket:" + chat).contains("goal_state"));
}

TEST_CASE("goal: a model that never finishes is stopped by the iteration "
          "limit, then by 12 continuation turns") {
  auto gw = goal_gateway();
  gw.cfg.agent.max_tool_iterations = 2;
  gw.rt.reset();
  gw.rt = std::make_unique<runtime>(gw.cfg, true);
  gw.llm.push(create_call("Keep counting."));
  gw.llm.push(text("started"));
  // Every later answer is the fake's echo: text, never update_goal.
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat = ready_chat(c);
  say(c, chat, "/goal count for ever");
  read_turns(c, 13);
  auto reqs = gw.llm.requests();
  // The /goal turn: create_goal, an answer carried on, then at its limit
  // the no-tools summary (it began without a goal). Each continuation turn:
  // two answers, each carried on, and the limit ends it without a summary
  // (another turn follows), but the 12th, the last, which is summarised.
  REQUIRE(reqs.size() == 3 + 11 * 2 + 3);
  CHECK(in_turn(reqs[1]) == false);
  CHECK(tool_names(reqs[2]).empty());
  size_t at = 3;
  for (int round = 1; round <= 12; ++round) {
    CAPTURE(round);
    CHECK(continuation(reqs[at]));
    CHECK(in_turn(reqs[at + 1]));
    CHECK_FALSE(tool_names(reqs[at + 1]).empty());
    at += 2;
  }
  CHECK(tool_names(reqs[at]).empty()); // the 12th turn's summary
  auto meta = file_meta(gw, "websocket:" + chat);
  CHECK(meta["_sustained_goal_continuation_rounds"] == 12);
  CHECK(meta["goal_state"]["status"] == "active"); // still the user's goal
  ping_goal(gw, c, chat, reqs.size());
}

TEST_CASE("goal: a turn cut at the iteration limit is continued without a "
          "summary call") {
  auto gw = goal_gateway();
  gw.cfg.agent.max_tool_iterations = 1;
  gw.rt.reset();
  gw.rt = std::make_unique<runtime>(gw.cfg, true);
  gw.llm.push(create_call("Finish the report."));
  gw.llm.push(text("recorded, starting"));
  gw.llm.push(tool_calls({call("l1", "list_dir", {{"path", "."}})}));
  gw.llm.push(
    tool_calls({call("g2", "update_goal", {{"action", "complete"}})}));
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat = ready_chat(c);
  say(c, chat, "/goal finish the report");
  auto evs = read_turns(c, 3);
  // The /goal turn had no goal when it began: finalised as any turn. The
  // first continuation hit the limit with the goal still active: no
  // summary call, nothing said, the next continuation carried on. That
  // one ended the goal at its limit: the limit's own text answers, as in
  // the original.
  const std::string limit_text =
    "I used all 1 tool steps this turn allows without finishing the task. "
    "Try splitting it into smaller steps, or ask me to continue.";
  CHECK(answers(evs)
        == std::vector<std::string>{"recorded, starting", limit_text});
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 4);
  CHECK(tool_names(reqs[1]).empty()); // the /goal turn's summary
  CHECK(continuation(reqs[2]));
  CHECK(continuation(reqs[3]));
  CHECK_FALSE(tool_names(reqs[3]).empty()); // no summary before it
  // The quiet turn kept its work but not the limit's text.
  int limit_texts = 0;
  for (auto& m : file_messages(gw, "websocket:" + chat))
    if (m.value("role", "") == "assistant" && m["content"] == limit_text)
      ++limit_texts;
  CHECK(limit_texts == 1);
  ping(gw, c, chat, 4);
}

TEST_CASE("goal: a sustained-goal turn's model call has no wall clock") {
  auto gw = goal_gateway();
  gw.cfg.timeouts.llm_timeout_s = 1;
  gw.rt.reset();
  gw.rt = std::make_unique<runtime>(gw.cfg, true);
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat = ready_chat(c);
  // An ordinary turn: cut by timeouts.llmTimeoutS.
  auto slow = text("too late");
  slow.delay = 2500ms;
  gw.llm.push(slow);
  say(c, chat, "hello");
  CHECK(final_message(c) == "Error calling LLM: timed out after 1s");
  // A /goal turn waits for the model as long as it takes.
  auto slow_goal = create_call("Take your time.");
  slow_goal.delay = 2500ms;
  gw.llm.push(slow_goal);
  auto slow_answer = tool_calls(
    {call("g2", "update_goal", {{"action", "complete"}})});
  slow_answer.delay = 2500ms;
  gw.llm.push(slow_answer);
  gw.llm.push(text("done slowly"));
  say(c, chat, "/goal take your time");
  CHECK(final_message(c) == "done slowly");
}

TEST_CASE("goal: /stop ends the continuation and /goal is refused mid-turn") {
  auto gw = goal_gateway();
  ws_client c;
  auto chat = goal_running_exec(gw, c);
  say(c, chat, "/goal something else");
  CHECK(
    final_message(c).starts_with("A task is already running for this chat."));
  say(c, chat, "/stop");
  auto evs = read_until(c, 30s, [](const json& e) {
    return is(e, "message") && !e.contains("kind")
           && e.value("text", "").starts_with("Stopped");
  });
  REQUIRE_FALSE(evs.empty());
  CHECK(evs.back()["text"] == "Stopped 1 task(s).");
  // The goal itself stays: the user may go on with it or end it.
  CHECK(file_meta(gw, "websocket:" + chat)["goal_state"]["status"] == "active");
  ping_goal(gw, c, chat, 3); // nothing ran between the stop and the ping
}
