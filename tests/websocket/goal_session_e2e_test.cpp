// The goal as the session keeps it, end to end on a real gateway: a
// browser attaching to a chat gets the stored goal and the running turn
// again (the chats of every agent in agents.list, not only main's); the
// original's session file with a goal is read, continued and kept across a
// restart; a subagent never sees the goal tools.
#include <doctest/doctest.h>

#include "nb_test_paths.hpp"
#include "tests/websocket/goal_rig.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("goal: a browser attaching to the chat gets the goal and the "
          "running turn again") {
  auto gw = goal_gateway();
  ws_client c;
  auto chat = goal_running_exec(gw, c);

  // A second browser (a refresh) attaches while the goal's turn runs.
  ws_client late;
  auto evs = attach_as(gw, late, "ann", chat);
  auto states = of_kind(evs, "goal_state");
  REQUIRE(states.size() == 1);
  CHECK(states[0]["chat_id"] == chat);
  CHECK(states[0]["goal_state"]
        == json{{"active", true},
                {"status", "active"},
                {"ui_summary", "count"},
                {"objective", "Wait for the build."}});
  REQUIRE(is(evs.back(), "goal_status"));
  CHECK(evs.back()["status"] == "running");
  CHECK(evs.back()["started_at"].is_number());
  CHECK_FALSE(evs.back().value("turn_id", "").empty());

  say(c, chat, "/stop");
  // "/stop" answers at once; the stopped turn's "idle" may come after.
  bool stopped = false, idle = false;
  read_until(c, 30s, [&](const json& e) {
    stopped = stopped
              || (is(e, "message")
                  && e.value("text", "").starts_with("Stopped"));
    idle = idle || (is(e, "goal_status") && e["status"] == "idle");
    return stopped && idle;
  });
  REQUIRE(stopped);
  REQUIRE(idle);
  // After the stop: the goal again, and no turn said to be running; the
  // next status is the new turn's.
  ws_client after;
  REQUIRE(after.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  ready_chat(after);
  after.send_text(json{{"type", "attach"}, {"chat_id", chat}}.dump());
  evs = read_until(after, 20s,
                   [](const json& e) { return is(e, "goal_state"); });
  REQUIRE_FALSE(evs.empty());
  CHECK(evs.back()["goal_state"]["active"] == true);
  // A stale replay would carry the stopped turn's start, from before now.
  double before_ping =
    std::chrono::duration<double>(
      std::chrono::system_clock::now().time_since_epoch())
      .count();
  gw.llm.push(text("pong"));
  say(after, chat, "ping");
  evs = read_until(after, 30s,
                   [](const json& e) { return is(e, "goal_status"); });
  REQUIRE_FALSE(evs.empty());
  CHECK(evs.back()["status"] == "running");
  CHECK(evs.back()["started_at"].get<double>() >= before_ping);
}

TEST_CASE("goal: a browser attaching to a chat of another agent gets that "
          "agent's goal and running turn") {
  // ann's WebUI chats go to the agent "writer" (a binding names her).
  auto gw = goal_gateway([](settings& cfg) {
    agent_profile writer;
    writer.id = "writer";
    writer.agent = cfg.agent;
    writer.agent.workspace = cfg.agent.workspace + "-writer";
    cfg.agents.push_back(writer);
    agent_binding to_writer;
    to_writer.agent = "writer";
    to_writer.channel = "websocket";
    to_writer.sender_id = "ann";
    cfg.bindings.push_back(to_writer);
  });
  ws_client c;
  auto chat = goal_running_exec(gw, c);
  CHECK(file_meta(gw, "writer:websocket:" + chat)["goal_state"]["objective"]
        == "Wait for the build.");

  ws_client late;
  auto evs = attach_as(gw, late, "ann", chat);
  auto states = of_kind(evs, "goal_state");
  REQUIRE(states.size() == 1);
  CHECK(states[0]["chat_id"] == chat);
  CHECK(states[0]["goal_state"]["active"] == true);
  CHECK(states[0]["goal_state"]["objective"] == "Wait for the build.");
  REQUIRE(is(evs.back(), "goal_status"));
  CHECK(evs.back()["status"] == "running");

  // Another client, whom no binding sends to writer, attaching to the same
  // chat id reaches main's session of it, which has no goal and no turn
  // running: neither writer's goal nor writer's running turn comes to it.
  // Its own turn's status is the first it gets (writer's exec still
  // sleeps, so writer sends nothing meanwhile); a replay of writer's would
  // carry that turn's start, from before the ping.
  ws_client other;
  REQUIRE(other.connect(gw.port("websocket"), "/?client_id=bob") == 101);
  ready_chat(other);
  double before_ping =
    std::chrono::duration<double>(
      std::chrono::system_clock::now().time_since_epoch())
      .count();
  other.send_text(json{{"type", "attach"}, {"chat_id", chat}}.dump());
  gw.llm.push(text("pong"));
  say(other, chat, "ping");
  evs = read_turns(other, 1);
  CHECK(answers(evs) == std::vector<std::string>{"pong"});
  CHECK(of_kind(evs, "goal_state").empty());
  auto statuses = of_kind(evs, "goal_status");
  REQUIRE_FALSE(statuses.empty());
  for (auto& e : statuses)
    if (e["status"] == "running")
      CHECK(e["started_at"].get<double>() >= before_ping);

  say(c, chat, "/stop");
  read_until(c, 30s, [](const json& e) {
    return is(e, "message") && e.value("text", "").starts_with("Stopped");
  });
}

TEST_CASE(
  "goal: the original's goal is read and continued and kept after a restart") {
  auto gw = goal_gateway();
  // The file's turns are days old: no idle archiving (a model call of its
  // own) in this test.
  gw.cfg.agent.idle_compact_after_minutes = 0;
  gw.cfg.agent.max_tool_iterations = 2; // each turn is cut at two answers
  gw.rt.reset();
  gw.rt = std::make_unique<runtime>(gw.cfg, true);
  const std::string key = "websocket:goalfix";
  auto dir = resolve_sessions_dir(gw.cfg);
  REQUIRE(dir);
  std::filesystem::copy_file(std::string{NB_SOURCE_DIR}
                               + "/tests/fixtures/goal-session/session.jsonl",
                             *dir + "/" + session_file_name(key));
  const std::string objective = "Sort the notes in notes/ into one folder per "
                                "month; done when no loose .md file is left in "
                                "notes/.";
  gw.llm.push(text("still sorting"));
  gw.llm.push(text("December next"));
  gw.llm.push(text("November done"));
  gw.llm.push(text("October done"));
  gw.llm.push(text("three months sorted so far"));
  {
    ws_client c;
    REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
    ready_chat(c);
    say(c, "goalfix", "how is it going?");
    // The user's turn: both answers carried on by the goal, the limit cuts
    // it quietly; the file's 11 rounds leave one continuation turn, the
    // last, whose limit is summarised: its answer is the one the user
    // gets.
    auto evs = read_turns(c, 2);
    CHECK(answers(evs)
          == std::vector<std::string>{"three months sorted so far"});
    auto reqs = gw.llm.requests();
    REQUIRE(reqs.size() == 5);
    auto user = last_user(reqs[0]);
    CHECK(user.find("Goal (active):\n" + objective + "\nSummary: sort notes")
          != std::string::npos);
    auto& carry = reqs[1].body["messages"].back();
    CHECK(carry["role"] == "user");
    CHECK(carry["content"]
          == "A sustained goal is still active:\n\nGoal (active):\n"
               + objective
               + "\nSummary: sort notes\n\nKeep working toward it with "
                 "your tools. If the objective is really achieved, call "
                 "update_goal with action='complete'.");
    CHECK(continuation(reqs[2]));
    CHECK(in_turn(reqs[3]));
    CHECK(tool_names(reqs[4]).empty()); // the last round's summary
  }
  auto meta = file_meta(gw, key);
  CHECK(meta["_sustained_goal_continuation_rounds"] == 12);
  CHECK(meta["title"] == "Notes");
  CHECK(meta["goal_state"]
        == json{{"status", "active"},
                {"objective", objective},
                {"ui_summary", "sort notes"},
                {"started_at", "2026-11-30T09:15:02.123456"}});

  // A restart: the goal is read back from the file.
  gw.rt.reset();
  gw.rt = std::make_unique<runtime>(gw.cfg, true);
  gw.llm.push(tool_calls({call(
    "g9", "update_goal", {{"action", "complete"}, {"recap", "sorted"}})}));
  gw.llm.push(text("all sorted"));
  ws_client c;
  auto evs = ann_says(gw, c, "goalfix", "finish up");
  CHECK(answers(evs) == std::vector<std::string>{"all sorted"});
  auto reqs = gw.llm.requests();
  // The 12th round was the last: no turn ran between it and this one.
  REQUIRE(reqs.size() == 7);
  CHECK(last_user(reqs[5]).find("finish up") != std::string::npos);
  CHECK(last_user(reqs[5]).find(objective) != std::string::npos);
  meta = file_meta(gw, key);
  CHECK(meta["goal_state"]["status"] == "completed");
  CHECK(meta["goal_state"]["started_at"] == "2026-11-30T09:15:02.123456");
  CHECK(meta["goal_state"]["recap"] == "sorted");
  CHECK_FALSE(meta.contains("_sustained_goal_continuation_rounds"));
}

TEST_CASE("goal: a subagent has no goal tools") {
  auto gw = goal_gateway();
  gw.llm.push(tool_calls(
    {call("sp", "spawn", {{"task", "list the workspace"}, {"wait", true}})}));
  gw.llm.push(text("nothing there"));
  gw.llm.push(text("the subagent found nothing"));
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat = ready_chat(c);
  say(c, chat, "ask a helper");
  auto evs = read_turns(c, 1);
  CHECK(answers(evs) == std::vector<std::string>{"the subagent found nothing"});
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 3);
  CHECK(has(tool_names(reqs[0]), "create_goal"));
  auto sub = tool_names(reqs[1]);
  CHECK_FALSE(sub.empty());
  CHECK_FALSE(has(sub, "create_goal"));
  CHECK_FALSE(has(sub, "update_goal"));
}
