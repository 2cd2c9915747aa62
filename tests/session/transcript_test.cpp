// Crash repair and replay over transcripts.
#include <doctest/doctest.h>

#include <string>

#include "actors/common/iso_time.hpp"
#include "actors/session/transcript.hpp"

using nlohmann::json;

namespace {

json user(const char* text) { return {{"role", "user"}, {"content", text}}; }
json assistant(const char* text) { return {{"role", "assistant"}, {"content", text}}; }
json calls(std::initializer_list<const char*> ids) {
  json tc = json::array();
  for (auto id : ids)
    tc.push_back({{"id", id}, {"type", "function"},
                  {"function", {{"name", "exec"}, {"arguments", "{}"}}}});
  return {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", tc}};
}
json result(const char* id) {
  return {{"role", "tool"}, {"tool_call_id", id}, {"name", "exec"}, {"content", "ok"}};
}

/// The replay as a JSON array of its messages.
json replayed(const nb::transcript_entries& t, size_t limit, size_t start = 0) {
  json out = json::array();
  for (auto& m : nb::replay_history(t, limit, start))
    out.push_back(m->form());
  return out;
}

} // namespace

TEST_CASE("a finished transcript needs no repair") {
  nb::transcript_entries t{user("hi"), assistant("hello")};
  CHECK(nb::repair_tail(t).empty());
  CHECK(nb::repair_tail({}).empty());
}

TEST_CASE("a dangling user message gets an interruption note") {
  nb::transcript_entries t{user("hi"), assistant("hello"), user("and now?")};
  auto fixes = nb::repair_tail(t);
  REQUIRE(fixes.size() == 1);
  CHECK(fixes[0]["role"] == "assistant");
  CHECK(fixes[0]["content"] == nb::interrupted_turn_note);
}

TEST_CASE("tool calls without results get synthetic results then a note") {
  nb::transcript_entries t{user("run two"), calls({"a", "b"}), result("a")};
  auto fixes = nb::repair_tail(t);
  REQUIRE(fixes.size() == 2);
  CHECK(fixes[0]["role"] == "tool");
  CHECK(fixes[0]["tool_call_id"] == "b");
  CHECK(fixes[0]["name"] == "exec");
  CHECK(fixes[0]["content"] == nb::interrupted_tool_note);
  CHECK(fixes[1]["role"] == "assistant");
  // Applying the fixes leaves nothing to repair.
  t.insert(t.end(), fixes.begin(), fixes.end());
  CHECK(nb::repair_tail(t).empty());
}

TEST_CASE("command exchanges are ignored by repair and replay") {
  json cmd_user = user("/help");
  cmd_user["_command"] = true;
  json cmd_reply = assistant("Commands: ...");
  cmd_reply["_command"] = true;
  nb::transcript_entries t{user("hi"), assistant("hello"), cmd_user, cmd_reply};
  CHECK(nb::repair_tail(t).empty());
  auto replay = replayed(t, 100);
  REQUIRE(replay.size() == 2);
  CHECK(replay[1]["content"] == "hello");
}

TEST_CASE("replay starts at a user message and drops bookkeeping fields") {
  json first = assistant("orphan");
  json u = user("question");
  u["timestamp"] = "2026-01-01T00:00:00Z";
  u["_runtime"] = 1;
  nb::transcript_entries t{first, result("x"), u, calls({"c1"}), result("c1"),
                      assistant("answer")};
  auto replay = replayed(t, 100);
  REQUIRE(replay.size() == 4);
  CHECK(replay[0]["role"] == "user");
  CHECK_FALSE(replay[0].contains("timestamp"));
  CHECK_FALSE(replay[0].contains("_runtime"));
  CHECK(replay[1]["tool_calls"][0]["id"] == "c1");
  // A limit that cuts into a tool group moves the start to a user message.
  auto cut = replayed(t, 2);
  CHECK(cut.empty());
}

TEST_CASE("a long chat replays its last messages from a user message on") {
  // 3 000 turns of user, tool call, result, answer, with commands between:
  // only the tail within the limit is replayed, starting at a user message.
  json cmd = user("/status");
  cmd["_command"] = true;
  nb::transcript_entries t;
  for (int i = 0; i < 3000; ++i) {
    auto n = std::to_string(i);
    auto id = "c" + n;
    t.push_back(user(("q" + n).c_str()));
    t.push_back(calls({id.c_str()}));
    t.push_back(result(id.c_str()));
    t.push_back(assistant(("a" + n).c_str()));
    if (i % 7 == 0)
      t.push_back(cmd);
  }
  auto replay = replayed(t, 10);
  // The last ten replayable messages are ...q2997's result, a2997, then
  // q2998..a2999 (eight); the first user message among them is q2998.
  REQUIRE(replay.size() == 8);
  CHECK(replay[0]["content"] == "q2998");
  CHECK(replay[7]["content"] == "a2999");
  // From a later start only what follows it counts.
  auto from = replayed(t, 200, t.size() - 3);
  REQUIRE(from.empty()); // a tool call, its result, an answer: no user
  CHECK(replayed(t, 0).empty());
  CHECK(replayed(t, 10, t.size() + 5).empty());
}

TEST_CASE("parse_messages keeps objects and skips the rest") {
  auto msgs = nb::parse_messages({R"({"role":"user","content":"a"})", "not json",
                                  "[1,2]", R"({"role":"assistant"})"});
  CHECK(msgs.size() == 2);
}

TEST_CASE("iso_now writes the original's timestamps") {
  // Python's datetime.now().isoformat(): local, microseconds, no zone.
  auto t = nb::iso_now();
  CHECK(t.size() == 26);
  CHECK(t[10] == 'T');
  CHECK(t[19] == '.');
  CHECK(t.find('Z') == std::string::npos);
  CHECK(nb::iso_minus(std::chrono::hours(1)) < t);
}


TEST_CASE("hostile session lines are skipped or repaired in the replay") {
  json hacker{{"role", "hacker"}, {"content", "obey me"}};
  json no_role{{"content", "who am I"}};
  json numeric_role{{"role", 7}, {"content", "x"}};
  json yes_command = user("pretend command");
  yes_command["_command"] = "yes";
  json object_content{{"role", "user"}, {"content", {{"evil", true}}}};
  json number_content{{"role", "assistant"}, {"content", 42}};
  json bad_parts{{"role", "user"},
                 {"content", json::array({1, {{"type", "text"}}, {{"type", "text"}, {"text", "kept"}}})}};
  json bad_calls{{"role", "assistant"}, {"content", nullptr},
                 {"tool_calls", json::array({"nope", {{"id", 5}},
                                             {{"id", "c1"}, {"function", {{"name", "exec"}, {"arguments", {{"command", "ls"}}}}}}})}};
  json orphan_tool{{"role", "tool"}, {"content", "no id"}};
  json stamped = assistant("done");
  stamped["timestamp"] = 12;
  stamped["name"] = json::array();
  nb::transcript_entries t{user("hi"), hacker, no_role, numeric_role, yes_command,
                      object_content, number_content, bad_parts, bad_calls,
                      result("c1"), orphan_tool, stamped};
  CHECK(nb::repair_tail(t).empty());
  auto replay = replayed(t, 100);
  std::vector<std::string> roles;
  for (auto& m : replay) {
    roles.push_back(m["role"].get<std::string>());
    // Every replayed message is one a strict provider accepts.
    CHECK((m["content"].is_string() || m["content"].is_array()
           || (m["content"].is_null() && m.contains("tool_calls"))));
    CHECK_FALSE(m.contains("_command"));
    CHECK_FALSE(m.contains("timestamp"));
    if (m.contains("name"))
      CHECK(m["name"].is_string());
  }
  CHECK(roles == std::vector<std::string>{"user", "user", "user", "assistant",
                                          "user", "assistant", "tool", "assistant"});
  CHECK(replay[1]["content"] == "pretend command"); // "yes" is not a command
  CHECK(replay[2]["content"] == R"({"evil":true})");
  CHECK(replay[3]["content"] == "42");
  REQUIRE(replay[4]["content"].is_array());
  CHECK(replay[4]["content"].size() == 1);
  CHECK(replay[4]["content"][0]["text"] == "kept");
  REQUIRE(replay[5]["tool_calls"].size() == 1);
  CHECK(replay[5]["tool_calls"][0]["function"]["arguments"] == R"({"command":"ls"})");
  // The helpers never throw on such lines.
  CHECK(nb::role_of(numeric_role).empty());
  CHECK_FALSE(nb::is_command(yes_command));
  CHECK(nb::replayable(hacker).is_null());
  CHECK(nb::replayable(json("not an object")).is_null());
}

TEST_CASE("an entry's replay is made once, when it is added, and shared") {
  json u = user("question");
  u["timestamp"] = "2026-01-01T00:00:00";
  json cmd = user("/status");
  cmd["_command"] = true;
  nb::transcript_entries t{u, calls({"c1"}), result("c1"), assistant("answer"),
                           cmd};
  // The replay form without bookkeeping, and its text written with it.
  auto& r = t[0].replay();
  REQUIRE(r);
  CHECK(r->form() == nb::replayable(u));
  CHECK(r->text() == nb::replayable(u).dump());
  CHECK(t[0].message() == u); // the stored message is kept as it was
  // The made message reads role and content in the stored message: the
  // transcript holds them once.
  CHECK(r->reads_line());
  CHECK(&r->fields() == &t[0].message());
  CHECK_FALSE(t[4].replay()); // a command exchange is never replayed
  // Two turns' replays and a copy of the transcript (a rewrite's) hand out
  // the same made messages: nothing is written out again.
  auto first = nb::replay_history(t, 100);
  auto copy = t;
  auto second = nb::replay_history(copy, 100);
  REQUIRE(first.size() == 4);
  REQUIRE(second.size() == 4);
  for (size_t i = 0; i < first.size(); ++i)
    CHECK(first[i].get() == second[i].get());
  CHECK(first[0].get() == r.get());
}

TEST_CASE("a user line's attached CLI apps are named in the replay as the "
          "original names them") {
  json attached = user("draw it");
  attached["cli_apps"] = json::parse(
    R"([{"name": " Gimp ", "entry_point": "gimp-cli"}, {"name": ""},
        {"name": "drawit"}, 7])");
  json empty_text = user("");
  empty_text["cli_apps"] = json::parse(R"([{"name": "gimp"}])");
  // The original's own line: its runtime context is in its text already.
  json with_context = user("again\n\n[Runtime Context]...");
  with_context["cli_apps"] = json::parse(R"([{"name": "gimp"}])");
  with_context["_runtime_context"] = {{"version", 1}, {"suffix", "..."}};
  nb::transcript_entries t{attached,        assistant("drawn"), empty_text,
                           assistant("ok"), with_context};
  auto replay = replayed(t, 100);
  REQUIRE(replay.size() == 5);
  CHECK(replay[0]["content"]
        == "draw it\n"
           "[CLI App Attachment: @gimp; tool=run_cli_app; "
           "entry_point=gimp-cli; skill=skills/cli-app-gimp/SKILL.md]\n"
           "[CLI App Attachment: @drawit; tool=run_cli_app; "
           "entry_point=unknown; skill=skills/cli-app-drawit/SKILL.md]");
  CHECK(replay[2]["content"]
        == "[CLI App Attachment: @gimp; tool=run_cli_app; "
           "entry_point=unknown; skill=skills/cli-app-gimp/SKILL.md]");
  CHECK(replay[4]["content"] == "again\n\n[Runtime Context]...");
  CHECK_FALSE(replay[0].contains("cli_apps"));
}

TEST_CASE("an assistant line's usage is kept apart and written back in place") {
  json a = assistant("done");
  a["model"] = "m1";
  a["timestamp"] = "2026-12-05T03:41:41.883879";
  a["usage"] = {{"cached_tokens", 0}, {"completion_tokens", 5},
                {"prompt_tokens", 10}, {"requests", 1}, {"total_tokens", 15}};
  nb::transcript_entry e{a};
  CHECK_FALSE(e.message().contains("usage"));
  CHECK(e.usage() == a["usage"]);
  CHECK(e.stored_text() == a.dump()); // the line as it was stored
  auto [model, u] = nb::recorded_usage_of(e);
  CHECK(model == "m1");
  CHECK(u["prompt_tokens"] == 10);
  // The model is given the same as before, and never the usage.
  REQUIRE(e.replay());
  CHECK(e.replay()->form() == nb::replayable(a));
  CHECK(e.replay()->text().find("usage") == std::string::npos);
  // Only an assistant's usage object is taken apart; other lines are
  // written as they were.
  json odd = user("hi");
  odd["usage"] = {{"prompt_tokens", 1}};
  nb::transcript_entry u_line{odd};
  CHECK(u_line.message() == odd);
  CHECK(u_line.usage().is_null());
  CHECK(u_line.stored_text() == odd.dump());
  // A usage object whose text cannot be written (not UTF-8) stays where it
  // was rather than failing the load, and is still read.
  json bad = assistant("x");
  bad["usage"] = {{"note", std::string{"a\xff"}}, {"prompt_tokens", 3}};
  nb::transcript_entry b_line{bad};
  CHECK(b_line.message() == bad);
  CHECK(b_line.usage() == bad["usage"]);
}
