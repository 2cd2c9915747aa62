// Sustained goals end to end: a browser chat on a real gateway (WebSocket,
// durable inbox, session files) with the scripted model. /goal lets the
// model record a goal; while it is active each turn's end queues a
// continuation turn through the inbox, up to 12 per goal; update_goal,
// /stop and the limit end them; the goal is in the session's metadata in
// the original's shape, read back after a restart and from a file the
// original wrote; a browser attaching gets the goal and the running turn
// again; a goal turn has no LLM wall clock and skips the summary call at
// its iteration limit when a continuation follows; a subagent never sees
// the goal tools.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "actors/store/session_files.hpp"
#include "nb_test_paths.hpp"
#include "tests/websocket/ws_gateway.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

gateway goal_gateway() {
  return gateway{{{"websocket", R"({"enabled": true, "port": 0,
                                    "streaming": false})"}}};
}

void say(ws_client& c, const std::string& chat, const std::string& text) {
  c.send_text(
    json{{"type", "message"}, {"chat_id", chat}, {"content", text}}.dump());
}

/// Events until the `n`th turn_end (inclusive).
std::vector<json> read_turns(ws_client& c, int n) {
  int seen = 0;
  auto evs = read_until(
    c, 60s, [&](const json& e) { return is(e, "turn_end") && ++seen == n; });
  REQUIRE_MESSAGE(seen == n, "turn_end events: " << seen << " of " << n);
  return evs;
}

std::vector<json> of_kind(const std::vector<json>& evs, const char* name) {
  std::vector<json> out;
  for (auto& e : evs)
    if (is(e, name))
      out.push_back(e);
  return out;
}

/// Final answers (message events without a kind), in order.
std::vector<std::string> answers(const std::vector<json>& evs) {
  std::vector<std::string> out;
  for (auto& e : of_kind(evs, "message"))
    if (!e.contains("kind"))
      out.push_back(e.value("text", ""));
  return out;
}

std::string last_user(const recorded_request& r) {
  auto& msgs = r.body["messages"];
  for (auto i = msgs.rbegin(); i != msgs.rend(); ++i)
    if ((*i)["role"] == "user" && (*i)["content"].is_string())
      return (*i)["content"];
  return "";
}

std::vector<std::string> tool_names(const recorded_request& r) {
  std::vector<std::string> out;
  if (r.body.contains("tools"))
    for (auto& t : r.body["tools"])
      out.push_back(t["function"]["name"]);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool continuation(const recorded_request& r) {
  return last_user(r).starts_with("Carry on with the active sustained goal");
}

json file_meta(const gateway& gw, const std::string& key) {
  auto dir = resolve_sessions_dir(gw.cfg);
  REQUIRE(dir);
  auto snap = load_session(*dir, key);
  REQUIRE(snap);
  return json::parse(snap->metadata_json);
}

std::vector<json> file_messages(const gateway& gw, const std::string& key) {
  auto dir = resolve_sessions_dir(gw.cfg);
  REQUIRE(dir);
  auto snap = load_session(*dir, key);
  REQUIRE(snap);
  std::vector<json> out;
  for (auto& m : snap->messages)
    out.push_back(json::parse(m));
  return out;
}

/// A last user turn, whose model request must be number `index`: a
/// continuation is queued before the answer the test waited for, so one
/// that should not have run would come before it.
void ping(gateway& gw, ws_client& c, const std::string& chat, size_t index) {
  gw.llm.push(text("pong"));
  say(c, chat, "ping");
  auto evs = read_turns(c, 1);
  CHECK(answers(evs) == std::vector<std::string>{"pong"});
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() > index);
  CHECK(last_user(reqs[index]).starts_with("ping"));
}

fake_response create_call(const std::string& objective) {
  return tool_calls({call(
    "g1", "create_goal", {{"objective", objective}, {"ui_summary", "count"}})});
}

/// A goal whose first continuation turn is running a long exec call (its
/// model request arrived): the chat.
std::string goal_running_exec(gateway& gw, ws_client& c) {
  gw.llm.push(create_call("Wait for the build."));
  gw.llm.push(text("started"));
  gw.llm.push(tool_calls({call("s1", "exec", {{"command", "sleep 30"}})}));
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat = ready_chat(c);
  say(c, chat, "/goal wait for the build");
  read_turns(c, 1);
  for (int i = 0; i < 600 && gw.llm.request_count() < 3; ++i)
    std::this_thread::sleep_for(50ms);
  REQUIRE(gw.llm.request_count() == 3);
  return chat;
}

} // namespace

TEST_CASE("goal: /goal records it and continues until update_goal ends it") {
  auto gw = goal_gateway();
  gw.llm.push(create_call("Count to three, one number per turn."));
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
  auto evs = read_turns(c, 3); // the /goal turn and two continuations
  CHECK(answers(evs) == std::vector<std::string>{"one", "two", "three, done"});

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
  // Each continuation names the goal.
  CHECK(continuation(reqs[2]));
  CHECK(last_user(reqs[2]).find("Count to three, one number per turn.")
        != std::string::npos);
  CHECK(continuation(reqs[3]));
  CHECK(
    reqs[4].body["messages"].back()["content"].get<std::string>().starts_with(
      "Goal marked complete ("));

  // The WebUI's events: the goal strip, each turn's end, the run state.
  auto states = of_kind(evs, "goal_state");
  REQUIRE(states.size() == 2);
  CHECK(states[0]["goal_state"]["active"] == true);
  CHECK(states[0]["goal_state"]["objective"]
        == "Count to three, one number per turn.");
  CHECK(states[0]["goal_state"]["ui_summary"] == "count");
  CHECK(states[1]["goal_state"] == json{{"active", false}});
  auto ends = of_kind(evs, "turn_end");
  CHECK(ends[0]["goal_state"]["active"] == true);
  CHECK(ends[1]["goal_state"]["active"] == true);
  CHECK(ends[2]["goal_state"] == json{{"active", false}});
  // running as each turn calls the model, idle before its turn_end.
  auto status = of_kind(evs, "goal_status");
  REQUIRE(status.size() == 6);
  CHECK(status[0]["status"] == "running");
  CHECK(status[0]["started_at"].is_number());
  CHECK(status[1]["status"] == "idle");
  CHECK(status[5]["status"] == "idle");

  // No more turns: the next one is the user's.
  ping(gw, c, chat, 5);
  CHECK(gw.llm.requests().size() == 6);

  // The goal as the original stores it, and the transcript.
  auto key = "websocket:" + chat;
  auto meta = file_meta(gw, key);
  auto& g = meta["goal_state"];
  CHECK(g["status"] == "completed");
  CHECK(g["objective"] == "Count to three, one number per turn.");
  CHECK(g["recap"] == "counted to three");
  CHECK(g["completed_at"] == g["ended_at"]);
  CHECK(g["started_at"].get<std::string>().size() == 26);
  CHECK_FALSE(meta.contains("_sustained_goal_continuation_rounds"));
  int prompts = 0;
  for (auto& m : file_messages(gw, key))
    prompts += m.value("_goal_continuation", false) ? 1 : 0;
  CHECK(prompts == 2);
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

TEST_CASE("goal: at most 12 continuation turns per goal") {
  auto gw = goal_gateway();
  gw.llm.push(create_call("Keep counting."));
  gw.llm.push(text("started"));
  // The continuations get the fake's echo.
  ws_client c;
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat = ready_chat(c);
  say(c, chat, "/goal count for ever");
  read_turns(c, 13);
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 14);
  for (size_t i = 2; i < reqs.size(); ++i)
    CHECK(continuation(reqs[i]));
  ping(gw, c, chat, 14);
  CHECK(gw.llm.requests().size() == 15);
  auto meta = file_meta(gw, "websocket:" + chat);
  CHECK(meta["_sustained_goal_continuation_rounds"] == 12);
  CHECK(meta["goal_state"]["status"] == "active"); // still the user's goal
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

TEST_CASE("goal: a browser attaching to the chat gets the goal and the "
          "running turn again") {
  auto gw = goal_gateway();
  ws_client c;
  auto chat = goal_running_exec(gw, c);

  // A second browser (a refresh) attaches while the continuation runs.
  ws_client late;
  REQUIRE(late.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  ready_chat(late);
  late.send_text(json{{"type", "attach"}, {"chat_id", chat}}.dump());
  auto evs = read_until(late, 20s,
                        [](const json& e) { return is(e, "goal_status"); });
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
  read_until(c, 30s, [](const json& e) {
    return is(e, "message") && e.value("text", "").starts_with("Stopped");
  });
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
  ping(gw, c, chat, 3); // nothing ran between the stop and the ping
  // The goal itself stays: the user may go on with it or end it.
  CHECK(file_meta(gw, "websocket:" + chat)["goal_state"]["status"] == "active");
}

TEST_CASE(
  "goal: the original's goal is read and continued and kept after a restart") {
  auto gw = goal_gateway();
  // The file's turns are days old: no idle archiving (a model call of its
  // own) in this test.
  gw.cfg.agent.idle_compact_after_minutes = 0;
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
  {
    ws_client c;
    REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
    ready_chat(c);
    say(c, "goalfix", "how is it going?");
    auto evs = read_turns(c, 2); // the user's turn and the last round
    CHECK(answers(evs)
          == std::vector<std::string>{"still sorting", "December next"});
    auto reqs = gw.llm.requests();
    REQUIRE(reqs.size() == 2);
    auto user = last_user(reqs[0]);
    CHECK(user.find("Goal (active):\n" + objective + "\nSummary: sort notes")
          != std::string::npos);
    CHECK(continuation(reqs[1]));
    ping(gw, c, "goalfix", 2); // the 12th round was the last
    CHECK(gw.llm.requests().size() == 3);
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
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  ready_chat(c);
  say(c, "goalfix", "finish up");
  auto evs = read_turns(c, 1);
  CHECK(answers(evs) == std::vector<std::string>{"all sorted"});
  auto reqs = gw.llm.requests();
  CHECK(last_user(reqs[reqs.size() - 2]).find(objective) != std::string::npos);
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
