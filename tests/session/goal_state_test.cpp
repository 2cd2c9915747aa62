// Sustained goals without actors: the /goal command's rules, what
// create_goal and update_goal do to the state the original stores in a
// session's metadata (its shape, checks and result texts), and reading the
// original's older forms.
#include <doctest/doctest.h>

#include "actors/session/commands.hpp"
#include "actors/session/goal_state.hpp"

using nlohmann::json;
namespace goal = nb::goal;

namespace {

const std::string goal_t0 = "2026-12-03T21:00:00.000001";
const std::string goal_t1 = "2026-12-03T22:00:00.000002";

/// Applies a successful change's patch to `meta`, as the session does.
goal::change run_goal(json& meta, const std::string& tool, const json& args,
                      bool allowed, const std::string& now = goal_t0) {
  auto c = goal::apply(tool, args.dump(), meta, allowed, now);
  if (!c.patch.is_null())
    meta.merge_patch(c.patch);
  return c;
}

} // namespace

TEST_CASE(
  "/goal: usage without a task and refused mid-turn or else a goal turn") {
  nb::command_context idle;
  auto usage = nb::run_command(nb::parse_command("/goal"), idle);
  CHECK(usage.action == nb::command_action::reply);
  CHECK(usage.text == "Usage: /goal <long-running task description>");
  nb::command_context busy;
  busy.busy = true;
  auto refused = nb::run_command(nb::parse_command("/goal ship it"), busy);
  CHECK(refused.action == nb::command_action::reply);
  CHECK(refused.text.starts_with("A task is already running for this chat. "
                                 "Use `/stop` first"));
  auto go = nb::run_command(nb::parse_command("/Goal@bot  ship it "), idle);
  CHECK(go.action == nb::command_action::goal);
  CHECK(nb::help_text().find("/goal <task>") != std::string::npos);
}

TEST_CASE("create_goal needs the /goal permission and one goal at a time") {
  json meta = json::object();
  auto refused = run_goal(meta, "create_goal", {{"objective", "x"}}, false);
  CHECK(refused.is_error);
  CHECK(refused.text
        == "Error: create_goal is unavailable for this turn. Ask the user to "
           "submit the complete objective as `/goal <task>`.");
  CHECK(refused.patch.is_null());

  meta["_sustained_goal_continuation_rounds"] = 5;
  auto ok = run_goal(
    meta, "create_goal",
    {{"objective", "  Make tests pass  "}, {"ui_summary", "tests"}}, true);
  CHECK_FALSE(ok.is_error);
  CHECK(ok.text
        == "Goal recorded. Keep working toward the objective using ordinary "
           "tools. When fully done and verified, call update_goal with "
           "action='complete'.\nSummary line: tests");
  CHECK(meta["goal_state"]
        == json{{"status", "active"},
                {"objective", "Make tests pass"},
                {"ui_summary", "tests"},
                {"started_at", goal_t0}});
  // A new goal starts with a fresh continuation budget.
  CHECK_FALSE(meta.contains("_sustained_goal_continuation_rounds"));
  CHECK(goal::active(meta));

  auto twice = run_goal(meta, "create_goal", {{"objective", "y"}}, true);
  CHECK(twice.is_error);
  CHECK(twice.text.starts_with("Error: a sustained goal is already active."));

  CHECK(run_goal(meta, "create_goal", json::object(), true).text
        == "Error: Invalid parameters for tool 'create_goal': missing "
           "required objective");
  json empty = json::object();
  CHECK(run_goal(empty, "create_goal", {{"objective", "   "}}, true).text
        == "Error: objective must not be empty.");
  CHECK(run_goal(empty, "create_goal", {{"objective", std::string(4001, 'a')}},
                 true)
          .text.find("objective must be at most 4000 chars")
        != std::string::npos);
}

TEST_CASE(
  "update_goal: complete or cancel or block ends it and replace needs /goal") {
  json meta = json::object();
  CHECK(run_goal(meta, "update_goal", {{"action", "complete"}}, true).text
        == "No active goal to update.");
  run_goal(meta, "create_goal", {{"objective", "first"}}, true);

  auto no_replace =
    run_goal(meta, "update_goal",
             {{"action", "replace"}, {"objective", "second"}}, false);
  CHECK(no_replace.is_error);
  CHECK(no_replace.text
        == "Error: replacing the goal is unavailable for this turn. Ask the "
           "user to submit the replacement objective as `/goal <task>`.");
  CHECK(run_goal(meta, "update_goal", {{"action", "replace"}}, true).text
        == "Error: update_goal action='replace' requires a replacement "
           "objective.");
  auto replaced = run_goal(
    meta, "update_goal",
    {{"action", "replace"}, {"objective", "second"}, {"recap", "changed"}},
    true, goal_t1);
  CHECK(replaced.text
        == "Goal replaced. Continue toward the new objective using ordinary "
           "tools.");
  CHECK(meta["goal_state"]["previous_objective"] == "first");
  CHECK(meta["goal_state"]["replaced_at"] == goal_t1);
  CHECK(meta["goal_state"]["objective"] == "second");

  CHECK(run_goal(meta, "update_goal", {{"action", "finish"}}, true)
          .text.starts_with("Error: Invalid parameters for tool "
                            "'update_goal': action must be one of"));
  auto done =
    run_goal(meta, "update_goal",
             {{"action", "complete"}, {"recap", "all green"}}, false, goal_t1);
  CHECK(done.revoke);
  CHECK(done.text
        == "Goal marked complete (" + goal_t1 + "). Recap:\nall green");
  auto& g = meta["goal_state"];
  CHECK(g["status"] == "completed");
  CHECK(g["ended_at"] == goal_t1);
  CHECK(g["completed_at"] == goal_t1);
  CHECK(g["recap"] == "all green");
  CHECK(g["objective"] == "second"); // the rest of the goal is kept
  CHECK_FALSE(goal::active(meta));
  CHECK(goal::ws_blob(meta) == json{{"active", false}});

  // A new goal after a finished one carries nothing of the old one.
  run_goal(meta, "create_goal", {{"objective", "third"}}, true, goal_t1);
  CHECK(meta["goal_state"]
        == json{{"status", "active"},
                {"objective", "third"},
                {"ui_summary", ""},
                {"started_at", goal_t1}});
  auto blocked =
    run_goal(meta, "update_goal", {{"action", "block"}}, false, goal_t1);
  CHECK(blocked.text == "Goal marked blocked (" + goal_t1 + ").");
  CHECK(
    goal::ws_blob(meta)
    == json{{"active", false}, {"status", "blocked"}, {"objective", "third"}});
  run_goal(meta, "create_goal", {{"objective", "fourth"}}, true, goal_t1);
  CHECK(
    run_goal(meta, "update_goal", {{"action", "cancel"}}, false, goal_t1).text
    == "Goal marked cancelled (" + goal_t1 + ").");
}

TEST_CASE("the original's older forms read back: JSON text and thread_goal") {
  json as_text{
    {"goal_state",
     R"({"status":"active","objective":"from text","ui_summary":"s"})"}};
  CHECK(goal::active(as_text));
  CHECK(
    goal::runtime_lines(as_text)
    == std::vector<std::string>{"Goal (active):", "from text", "Summary: s"});
  json legacy{
    {"thread_goal", {{"status", "active"}, {"objective", "old key"}}}};
  CHECK(goal::active(legacy));
  // A write moves it to the current key.
  auto c =
    run_goal(legacy, "update_goal", {{"action", "complete"}}, false, goal_t1);
  CHECK_FALSE(c.is_error);
  CHECK_FALSE(legacy.contains("thread_goal"));
  CHECK(legacy["goal_state"]["objective"] == "old key");
  CHECK(legacy["goal_state"]["status"] == "completed");
  CHECK_FALSE(goal::active(json{{"goal_state", "not json"}}));
  CHECK(goal::rounds(json{{"_sustained_goal_continuation_rounds", 3}}) == 3);
}

TEST_CASE("the model's guidance and the continuation text name the goal") {
  CHECK(goal::guidance(false, false).empty());
  auto start = goal::guidance(true, false);
  CHECK(start.find("create_goal") != std::string::npos);
  CHECK(goal::guidance(false, true).find("create_goal") == std::string::npos);
  json meta{{"goal_state", {{"status", "active"}, {"objective", "ship v2"}}}};
  auto prompt = goal::continuation_prompt(meta);
  CHECK(prompt.find("Goal (active):\nship v2") != std::string::npos);
  CHECK(prompt.find("update_goal") != std::string::npos);
}
