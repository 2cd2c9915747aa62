// The goal tests' rig: a real gateway with the WebSocket channel and the
// scripted model, and what the tests read from its events, its model
// requests and its session files.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "actors/store/session_files.hpp"
#include "tests/websocket/ws_gateway.hpp"

namespace nb::test {

inline gateway
goal_gateway(const std::function<void(settings&)>& adjust = {}) {
  return gateway{{{"websocket", R"({"enabled": true, "port": 0,
                                    "streaming": false})"}},
                 adjust};
}

inline void say(ws_client& c, const std::string& chat,
                const std::string& text) {
  c.send_text(
    json{{"type", "message"}, {"chat_id", chat}, {"content", text}}.dump());
}

/// Events until the `n`th turn_end (inclusive).
inline std::vector<json> read_turns(ws_client& c, int n) {
  int seen = 0;
  auto evs = read_until(
    c, 60s, [&](const json& e) { return is(e, "turn_end") && ++seen == n; });
  REQUIRE_MESSAGE(seen == n, "turn_end events: " << seen << " of " << n);
  return evs;
}

/// ann's browser `c` connects, says `text` in `chat` and reads its one
/// turn: the events.
inline std::vector<json> ann_says(gateway& gw, ws_client& c,
                                  const std::string& chat,
                                  const std::string& text) {
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  ready_chat(c);
  say(c, chat, text);
  return read_turns(c, 1);
}

inline std::vector<json> of_kind(const std::vector<json>& evs,
                                 const char* name) {
  std::vector<json> out;
  for (auto& e : evs)
    if (is(e, name))
      out.push_back(e);
  return out;
}

/// Final answers (message events without a kind), in order.
inline std::vector<std::string> answers(const std::vector<json>& evs) {
  std::vector<std::string> out;
  for (auto& e : of_kind(evs, "message"))
    if (!e.contains("kind"))
      out.push_back(e.value("text", ""));
  return out;
}

inline std::string last_user(const recorded_request& r) {
  auto& msgs = r.body["messages"];
  for (auto i = msgs.rbegin(); i != msgs.rend(); ++i)
    if ((*i)["role"] == "user" && (*i)["content"].is_string())
      return (*i)["content"];
  return "";
}

inline std::vector<std::string> tool_names(const recorded_request& r) {
  std::vector<std::string> out;
  if (r.body.contains("tools"))
    for (auto& t : r.body["tools"])
      out.push_back(t["function"]["name"]);
  return out;
}

inline bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

inline bool continuation(const recorded_request& r) {
  return last_user(r).starts_with("Carry on with the active sustained goal");
}

/// The message that carries an active goal on within a turn, for a goal
/// create_call recorded (its summary "count").
inline std::string in_turn_continuation(const std::string& objective) {
  return "A sustained goal is still active:\n\nGoal (active):\n" + objective
         + "\nSummary: count\n\nKeep working toward it with your tools. If "
           "the objective is really achieved, call update_goal with "
           "action='complete'.";
}

/// Whether the request's last message carries the goal on within the turn.
inline bool in_turn(const recorded_request& r) {
  auto& last = r.body["messages"].back();
  return last["role"] == "user" && last["content"].is_string()
         && last["content"].get<std::string>().starts_with(
           "A sustained goal is still active:");
}

inline json file_meta(const gateway& gw, const std::string& key) {
  auto dir = resolve_sessions_dir(gw.cfg);
  REQUIRE(dir);
  auto snap = load_session(*dir, key);
  REQUIRE(snap);
  return json::parse(snap->metadata_json);
}

inline std::vector<json> file_messages(const gateway& gw,
                                       const std::string& key) {
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
inline void ping(gateway& gw, ws_client& c, const std::string& chat,
                 size_t index) {
  gw.llm.push(text("pong"));
  say(c, chat, "ping");
  auto evs = read_turns(c, 1);
  CHECK(answers(evs) == std::vector<std::string>{"pong"});
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() > index);
  CHECK(last_user(reqs[index]).starts_with("ping"));
}

/// ping for a chat whose goal is still active: the answer is carried on,
/// and the model then completes the goal ("ok" answers). Its first model
/// request must be number `index`.
inline void ping_goal(gateway& gw, ws_client& c, const std::string& chat,
                      size_t index) {
  gw.llm.push(text("pong"));
  gw.llm.push(
    tool_calls({call("gp", "update_goal", {{"action", "complete"}})}));
  gw.llm.push(text("ok"));
  say(c, chat, "ping");
  auto evs = read_turns(c, 1);
  CHECK(answers(evs) == std::vector<std::string>{"ok"});
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == index + 3);
  CHECK(last_user(reqs[index]).starts_with("ping"));
  CHECK(in_turn(reqs[index + 1]));
}

inline fake_response create_call(const std::string& objective) {
  return tool_calls({call(
    "g1", "create_goal", {{"objective", objective}, {"ui_summary", "count"}})});
}

/// A goal turn running a long exec call after an answer the goal carried
/// on (its model request arrived): the chat.
inline std::string goal_running_exec(gateway& gw, ws_client& c) {
  gw.llm.push(create_call("Wait for the build."));
  gw.llm.push(text("started"));
  gw.llm.push(tool_calls({call("s1", "exec", {{"command", "sleep 30"}})}));
  REQUIRE(c.connect(gw.port("websocket"), "/?client_id=ann") == 101);
  auto chat = ready_chat(c);
  say(c, chat, "/goal wait for the build");
  // "started" is carried on within the turn: the exec call is its third
  // model request.
  for (int i = 0; i < 600 && gw.llm.request_count() < 3; ++i)
    std::this_thread::sleep_for(50ms);
  REQUIRE(gw.llm.request_count() == 3);
  return chat;
}

/// A browser of `client` attaching to `chat` (a refresh): the events it
/// gets up to the replayed goal_status. `browser` stays connected.
inline std::vector<json> attach_as(gateway& gw, ws_client& browser,
                                   const std::string& client,
                                   const std::string& chat) {
  REQUIRE(browser.connect(gw.port("websocket"), "/?client_id=" + client)
          == 101);
  ready_chat(browser);
  browser.send_text(json{{"type", "attach"}, {"chat_id", chat}}.dump());
  return read_until(browser, 20s,
                    [](const json& e) { return is(e, "goal_status"); });
}

} // namespace nb::test
