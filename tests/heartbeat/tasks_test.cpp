// The heartbeat's pure decisions: active tasks, target choice, trimming.
#include <doctest/doctest.h>

#include "actors/heartbeat/heartbeat_tasks.hpp"
#include "config/templates.hpp"

namespace {

using namespace nb;
using json = nlohmann::json;

json msg(const char* role, const char* content) {
  return {{"role", role}, {"content", content}};
}

} // namespace

TEST_CASE("active tasks are lines under an Active Tasks heading") {
  struct row {
    const char* text;
    bool active;
  };
  row table[] = {
    {"", false},
    {"# Title\n\n## Active Tasks\n", false},
    {"## Active Tasks\n<!--\n- not a task\n-->\n", false},
    {"## Active Tasks\n<!-- - not a task -->\n", false},
    {"## Active Tasks\n\n- water the plants", true},
    {"## Active Tasks\n### Garden\n- water the plants\n", true},
    {"## Notes\n\nsome random note", false},
    {"stray text\n## Active Tasks\n- check mail\n", true},
    {"stray text only\n", false},
    {"## Active tasks for today\n- x\n", true},
    {"## Active Tasks\n\n## Completed\n- done thing\n", false},
  };
  for (auto& r : table) {
    std::string text = r.text;
    CAPTURE(text);
    CHECK(heartbeat_has_active_tasks(text) == r.active);
  }
}

TEST_CASE("the shipped HEARTBEAT.md template has no active task") {
  // The template a new workspace gets, as compiled into the binary.
  bool seen = false;
  for (auto& f : workspace_templates())
    if (f.path == "HEARTBEAT.md") {
      seen = true;
      CHECK(f.content.find("## Active Tasks") != std::string::npos);
      CHECK_FALSE(heartbeat_has_active_tasks(f.content));
    }
  CHECK(seen);
}

TEST_CASE("the prompt carries the file after a fixed preamble") {
  auto p = heartbeat_prompt("## Active Tasks\n- x\n");
  CHECK(p.rfind("[", 0) == 0);
  CHECK(p.find("All clear.") != std::string::npos);
  CHECK(p.find("## Active Tasks\n- x\n") != std::string::npos);
}

TEST_CASE("the target is the newest chat on an enabled channel") {
  std::vector<session_activity> s{
    {"cli:direct", 900}, {"heartbeat", 800}, {"api:default", 700},
    {"discord:9", 600},  {"telegram:42", 500}, {"telegram:7", 400}};
  auto t = pick_heartbeat_target(s, {"telegram", "slack"});
  REQUIRE(t);
  CHECK(t->channel == "telegram");
  CHECK(t->chat_id == "42");
  t = pick_heartbeat_target(s, {"discord", "telegram"});
  REQUIRE(t);
  CHECK(t->session_key() == "discord:9");
  CHECK_FALSE(pick_heartbeat_target(s, {"slack"}));
  // cli is never a target, even when listed.
  CHECK_FALSE(pick_heartbeat_target({{"cli:direct", 1}}, {"cli"}));
  CHECK_FALSE(pick_heartbeat_target({{"telegram:", 1}}, {"telegram"}));
}

TEST_CASE("the target skips archived chats and follows the unified session's "
          "last chat") {
  std::vector<session_activity> s{{"websocket:old", 900, true},
                                  {"websocket:active", 800}};
  auto t = pick_heartbeat_target(s, {"websocket"});
  REQUIRE(t);
  CHECK(t->session_key() == "websocket:active");
  std::vector<session_activity> unified{
    {"unified:default", 900, false, "discord:chat-42"}, {"telegram:7", 800}};
  t = pick_heartbeat_target(unified, {"discord", "telegram"});
  REQUIRE(t);
  CHECK(t->session_key() == "discord:chat-42");
  // A last chat that cannot be reached: the next session is asked.
  for (std::string bad : {"discord:", "cli:direct", "nonsense", ""}) {
    unified[0].last_channel = bad;
    t = pick_heartbeat_target(unified, {"telegram", "cli"});
    REQUIRE(t);
    CHECK(t->session_key() == "telegram:7");
  }
  unified[0].last_channel = "slack:C1"; // a disabled channel
  t = pick_heartbeat_target(unified, {"telegram"});
  REQUIRE(t);
  CHECK(t->session_key() == "telegram:7");
}

TEST_CASE("trimming keeps a suffix that starts with a user message") {
  std::vector<json> m{msg("user", "1"), msg("assistant", "a"),
                      msg("user", "2"), msg("assistant", "b"),
                      msg("tool", "r"), msg("assistant", "c"),
                      msg("user", "3"), msg("assistant", "d")};
  auto kept = retain_recent_turns(m, 5);
  // The last 5 would start at a tool result: it moves on to "3".
  REQUIRE(kept.size() == 2);
  CHECK(kept[0]["content"] == "3");
  CHECK(retain_recent_turns(m, 6).size() == 6);
  CHECK(retain_recent_turns(m, 6)[0]["content"] == "2");
  CHECK(retain_recent_turns(m, 20).size() == 8);
  CHECK(retain_recent_turns(m, 0).empty());
}
