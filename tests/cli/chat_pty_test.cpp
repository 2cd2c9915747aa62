// `nanobot agent` in a pseudo-terminal: what the screen shows (rendered
// Markdown, no runtime metadata), the history file and the up arrow, lines
// continued with a backslash, Ctrl+C during a slow answer, --no-markdown,
// --logs.
#include <doctest/doctest.h>

#include <fstream>
#include <thread>

#include "tests/cli/cli_home.hpp"
#include "tests/cli/pty_session.hpp"
#include "tests/support/fake_llm.hpp"

using namespace nb::test;
using nlohmann::json;

namespace {

json llm_of(const fake_llm& llm) {
  return {{"providers", {{"custom", {{"apiBase", llm.base_url()}}}}}};
}

pty_session agent_chat(const cli_home& h, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv{nanobot_binary(), "agent", "-c", h.config};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return pty_session{argv, h.home.path};
}

/// The text of the last user message the model was sent.
std::string last_user_text(const fake_llm& llm) {
  auto reqs = llm.requests();
  if (reqs.empty())
    return {};
  std::string said;
  for (auto& m : reqs.back().body["messages"])
    if (m["role"] == "user" && m["content"].is_string())
      said = m["content"].get<std::string>();
  return said;
}

bool wait_for_requests(const fake_llm& llm, size_t n) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (llm.request_count() < n) {
    if (std::chrono::steady_clock::now() >= until)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::string history_text(const std::string& path) {
  std::ifstream in{path};
  return {std::istreambuf_iterator<char>{in}, {}};
}

constexpr auto npos = std::string::npos;

/// Waits until libedit reads the keys: the prompt can show while the
/// terminal is still in cooked mode, where a Ctrl+D typed that instant is
/// taken by the line discipline. Ctrl+L makes libedit clear the screen;
/// once that shows, the editor owns the keyboard.
bool editing(pty_session& t) {
  auto mark = t.screen().size();
  t.type("\x0c");
  return t.wait_for("[2J", mark) != npos;
}

} // namespace

TEST_CASE("the terminal chat renders Markdown and keeps a history") {
  fake_llm llm;
  cli_home h{llm_of(llm)};
  llm.push(stream_text({"# Plan\n\nThis is **bold** and `code`.\n\n",
                        "```python\nprint(1)\n```\n\n- one\n  - two\n"}));
  {
    auto t = agent_chat(h);
    REQUIRE(t.wait_for("You:") != npos);
    t.type("hello there\r");
    auto at = t.wait_for("╰", 0);
    REQUIRE_MESSAGE(at != npos, t.screen());
    REQUIRE(t.wait_for("You:", t.wait_for("two")) != npos);
    auto& s = t.screen();
    CHECK(s.find("┃") != npos); // the title's box
    CHECK(s.find("\033[1mPlan\033[0m") != npos);
    CHECK(s.find("This is \033[1mbold\033[0m and \033[1;36mcode\033[0m.")
          != npos);
    CHECK(s.find("╭─ python ─") != npos);
    CHECK(s.find(" print(1) ") != npos);
    CHECK(s.find(" \033[1;33m•\033[0m one") != npos);
    CHECK(s.find("    \033[1;33m•\033[0m two") != npos);
    // No Markdown markers are left.
    CHECK(s.find("**bold**") == npos);
    CHECK(s.find("```") == npos);

    // A trailing backslash continues the message on the next line; the
    // model gets one message of two lines. The echo it sends back carries
    // the runtime context the gateway appended: the screen does not.
    auto mark = t.screen().size();
    t.type("alpha\\\r");
    REQUIRE(t.wait_for("...", mark) != npos);
    t.type("beta\r");
    REQUIRE_MESSAGE(t.wait_for("echo: alpha", mark) != npos, t.screen());
    REQUIRE(t.wait_for("You:", t.wait_for("echo: alpha", mark)) != npos);
    CHECK(last_user_text(llm).rfind("alpha\nbeta", 0) == 0);
    CHECK(last_user_text(llm).find("[Runtime Context") != npos);
    CHECK(t.screen().find("Runtime Context") == npos);

    REQUIRE(editing(t));
    t.type("\x04"); // Ctrl+D leaves
    CHECK(t.wait_exit() == 0);
  }
  // Every line typed is in <config dir>/history/cli.
  auto hist = history_text(h.home.at("history/cli"));
  CHECK(hist.find("\n+hello there\n") != npos);
  CHECK(hist.find("\n+alpha\\\n") != npos);
  CHECK(hist.find("\n+beta\n") != npos);

  // The next chat loads it: the up arrow recalls the last line.
  auto t = agent_chat(h);
  REQUIRE(t.wait_for("You:") != npos);
  t.type("\x1b[A\r");
  REQUIRE(wait_for_requests(llm, 3));
  CHECK(last_user_text(llm).rfind("beta", 0) == 0);
  REQUIRE(t.wait_for("echo: beta") != npos);
  t.type("exit\r");
  CHECK(t.wait_exit() == 0);
}

TEST_CASE("Ctrl+C during a slow answer stops the turn and the chat goes on") {
  fake_llm llm;
  cli_home h{llm_of(llm)};
  // A stream that starts and then waits: no end until the client leaves.
  auto slow = stream_text({"Thinking about it"});
  std::vector<std::string> open;
  for (auto& e : slow.events)
    if (e.find("[DONE]") == npos && e.find("\"stop\"") == npos
        && e.find("usage") == npos)
      open.push_back(e);
  slow.events = open;
  slow.stall = true;
  llm.push(slow);
  llm.push(text("Fine again."));
  auto t = agent_chat(h);
  REQUIRE(t.wait_for("You:") != npos);
  t.type("take your time\r");
  REQUIRE(wait_for_requests(llm, 1));
  auto mark = t.screen().size();
  t.type("\x03");
  REQUIRE_MESSAGE(t.wait_for("Stopped 1 task(s).", mark) != npos, t.screen());
  REQUIRE(t.wait_for("You:", mark) != npos);
  mark = t.screen().size();
  t.type("and now?\r");
  REQUIRE_MESSAGE(t.wait_for("Fine again.", mark) != npos, t.screen());
  REQUIRE(t.wait_for("You:", t.wait_for("Fine again.", mark)) != npos);
  // Ctrl+C at an empty prompt leaves.
  t.type("\x03");
  CHECK(t.wait_exit() == 0);
}

TEST_CASE("--no-markdown shows the answer as written in the terminal") {
  fake_llm llm;
  cli_home h{llm_of(llm)};
  llm.push(text("**bold** and `code`"));
  auto t = agent_chat(h, {"--no-markdown"});
  REQUIRE(t.wait_for("You:") != npos);
  t.type("hi\r");
  auto at = t.wait_for("nanobot: **bold** and `code`");
  REQUIRE_MESSAGE(at != npos, t.screen());
  // The answer line carries no styling.
  auto line = t.screen().substr(at, t.screen().find('\n', at) - at);
  CHECK(line.find('\033') == npos);
  REQUIRE(t.wait_for("You:", at) != npos);
  REQUIRE(editing(t));
  t.type("\x04");
  CHECK(t.wait_exit() == 0);
}

TEST_CASE("--logs shows the gateway's log lines, without it they stay quiet") {
  fake_llm llm;
  cli_home h{llm_of(llm)};
  auto r = h.nanobot({"agent", "-m", "hi", "--no-stream", "--logs"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(has(r.err, "info  ["));
  r = h.nanobot({"agent", "-m", "hi", "--no-stream"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK_FALSE(has(r.err, "info  ["));
  CHECK_FALSE(has(r.err, "warn  ["));
  CHECK(r.out == "echo: hi\n");
}
