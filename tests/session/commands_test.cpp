// Slash command parsing, the command table and the commands' replies.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "actors/session/commands.hpp"

using nlohmann::json;

namespace {

std::string name_of(const nb::parsed_command& c) {
  return c.spec ? c.spec->name : "";
}

nb::command_reply run(const std::string& text, nb::command_context ctx = {}) {
  return nb::run_command(nb::parse_command(text), ctx);
}

} // namespace

TEST_CASE("commands match case-insensitively and drop a bot suffix") {
  CHECK(name_of(nb::parse_command("/help")) == "/help");
  CHECK(name_of(nb::parse_command("  /NEW  ")) == "/new");
  CHECK(name_of(nb::parse_command("/Status@my_bot")) == "/status");
  CHECK(name_of(nb::parse_command("/STOP@Some_Bot")) == "/stop");
  auto c = nb::parse_command("/history@bot 5  ");
  CHECK(name_of(c) == "/history");
  CHECK(c.args == "5");
}

TEST_CASE("plain text is not a command") {
  CHECK_FALSE(nb::parse_command("hello /help").is_command);
  CHECK_FALSE(nb::parse_command("").is_command);
}

TEST_CASE("unknown commands get a suggestion when one is close") {
  auto c = nb::parse_command("/hlep");
  CHECK(c.is_command);
  CHECK(c.spec == nullptr);
  CHECK(run("/hlep").text.find("Did you mean \"/help\"") != std::string::npos);
  CHECK(run("/stpo").text.find("Did you mean \"/stop\"") != std::string::npos);
  auto far = run("/frobnicate").text;
  CHECK(far.find("/help") != std::string::npos);
  CHECK(far.find("Did you mean") == std::string::npos);
}

TEST_CASE("a command without arguments refuses them") {
  auto r = run("/status now please");
  CHECK(r.text.find("does not accept arguments") != std::string::npos);
  CHECK(r.action == nb::command_action::reply);
}

TEST_CASE("help lists every command of the table") {
  auto h = nb::help_text();
  for (auto& c : nb::command_table())
    CHECK(h.find(c.name) != std::string::npos);
  for (auto name : {"/help", "/new", "/stop", "/status", "/history", "/skill"})
    CHECK(h.find(name) != std::string::npos);
}

TEST_CASE("stop and new ask the session to act") {
  nb::command_context idle;
  CHECK(run("/stop", idle).text == "No active task to stop.");
  CHECK(run("/stop", idle).action == nb::command_action::reply);
  nb::command_context busy;
  busy.busy = true;
  busy.active_tasks = 1;
  CHECK(run("/stop", busy).action == nb::command_action::stop);
  CHECK(run("/new").action == nb::command_action::new_session);
}

TEST_CASE("status shows model tokens context session uptime and tasks") {
  nb::transcript_entries transcript(7, json{{"role", "user"}, {"content", "x"}});
  nb::command_context ctx;
  ctx.session_key = "telegram:42";
  ctx.model = "test-model";
  ctx.context_window_tokens = 65536;
  ctx.max_tokens = 8192;
  ctx.transcript = &transcript;
  ctx.last_usage = {28000, 300, 28300, 14000, false};
  ctx.uptime_s = 3725;
  ctx.active_tasks = 2;
  auto t = run("/status", ctx).text;
  CHECK(t.find("Model: test-model") != std::string::npos);
  CHECK(t.find("28000 in / 300 out (50% cached)") != std::string::npos);
  CHECK(t.find("28.0k/65.5k") != std::string::npos);
  CHECK(t.find("(49% of the input budget)") != std::string::npos);
  CHECK(t.find("telegram:42, 7 messages") != std::string::npos);
  CHECK(t.find("1h 2m 5s") != std::string::npos);
  CHECK(t.find("2 active") != std::string::npos);
}

TEST_CASE("history shows the last n user and assistant messages") {
  nb::transcript_entries tr;
  for (int i = 0; i < 30; ++i) {
    tr.push_back(json{{"role", "user"}, {"content", "q" + std::to_string(i)}});
    tr.push_back(json{{"role", "assistant"}, {"content", nullptr},
                      {"tool_calls", json::array()}});
    tr.push_back(json{{"role", "tool"}, {"content", "r"}, {"tool_call_id", "c"}});
    tr.push_back(json{{"role", "assistant"}, {"content", "a" + std::to_string(i)}});
  }
  tr.push_back(json{{"role", "user"}, {"content", "/status"}, {"_command", true}});
  tr.push_back(json{{"role", "assistant"}, {"content", std::string(500, 'z')}});
  nb::command_context ctx;
  ctx.transcript = &tr;
  auto t = run("/history 3", ctx).text;
  CHECK(t.find("Last 3 message(s):") == 0);
  CHECK(t.find("👤 You: q29\n🤖 Bot: a29\n🤖 Bot: zzz") != std::string::npos);
  CHECK(t.find("/status") == std::string::npos);
  CHECK(t.find(std::string(201, 'z')) == std::string::npos); // shortened
  CHECK(run("/history", ctx).text.find("Last 10 message(s)") == 0);
  CHECK(run("/history 500", ctx).text.find("Last 50 message(s)") == 0);
  CHECK(run("/history many", ctx).text.find("Usage: /history [n]") == 0);
  nb::transcript_entries empty;
  ctx.transcript = &empty;
  CHECK(run("/history", ctx).text == "No messages in this conversation yet.");
}

TEST_CASE("skill lists workspace and built-in skills") {
  char tmpl[] = "/tmp/nb-cmd-XXXXXX";
  std::string ws = mkdtemp(tmpl);
  std::filesystem::create_directories(ws + "/skills/notes");
  std::ofstream{ws + "/skills/notes/SKILL.md"}
    << "---\nname: notes\ndescription: Keep tidy notes\n---\nBody\n";
  nb::command_context ctx;
  ctx.workspace = ws;
  auto t = run("/skill", ctx).text;
  CHECK(t.find("Available skills (") == 0);
  CHECK(t.find("**notes** — Keep tidy notes") != std::string::npos);
  std::filesystem::remove_all(ws);
}

TEST_CASE("evaluator-prompt reports the prompt in use and init writes a copy") {
  char tmpl[] = "/tmp/nb-cmd-XXXXXX";
  std::string ws = mkdtemp(tmpl);
  nb::command_context ctx;
  ctx.workspace = ws;
  auto before = run("/Evaluator-Prompt", ctx).text;
  CHECK(before.find("evaluate_notification") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(ws + "/prompts/evaluator.md"));
  run("/evaluator-prompt init", ctx);
  CHECK(std::filesystem::file_size(ws + "/prompts/evaluator.md") > 0);
  CHECK(run("/evaluator-prompt init", ctx).text.find("already exists")
        != std::string::npos);
  std::filesystem::remove_all(ws);
}
