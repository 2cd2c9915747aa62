// Subagents, the pure parts: spawn arguments are checked with clear errors,
// labels are cut on character boundaries, results and announcements say
// what happened.
#include <doctest/doctest.h>

#include <algorithm>

#include "actors/subagents/subagent_texts.hpp"

using namespace nb;

TEST_CASE("spawn arguments are checked and name the problem") {
  auto ok = parse_spawn_args(
    R"({"task":"count the files","label":"count","temperature":0.5,"wait":true})");
  CHECK(ok.error.empty());
  CHECK(ok.task == "count the files");
  CHECK(ok.label == "count");
  CHECK(ok.temperature == doctest::Approx(0.5));
  CHECK(ok.wait);
  auto plain = parse_spawn_args(R"({"task":"x"})");
  CHECK(plain.error.empty());
  CHECK_FALSE(plain.wait);
  CHECK(plain.temperature < 0);
  CHECK(parse_spawn_args("{}").error.find("'task' is required")
        != std::string::npos);
  CHECK(parse_spawn_args(R"({"task":"  \n"})").error.find("empty")
        != std::string::npos);
  CHECK(parse_spawn_args(R"({"task":"x","temperature":3})").error.find(
          "temperature")
        != std::string::npos);
  CHECK(parse_spawn_args(R"({"task":"x","wait":"yes"})").error.find("wait")
        != std::string::npos);
  CHECK(parse_spawn_args(R"({"task":"x","label":7})").error.find("label")
        != std::string::npos);
  CHECK(parse_spawn_args("[1]").error.find("JSON object") != std::string::npos);
  CHECK(parse_spawn_args("not json").error.find("JSON object")
        != std::string::npos);
}

TEST_CASE("default labels keep thirty characters and whole UTF-8 sequences") {
  CHECK(default_label("short task") == "short task");
  CHECK(default_label("a task that is much longer than thirty characters")
        == "a task that is much longer tha...");
  std::string cats;
  for (int i = 0; i < 40; ++i)
    cats += "\xF0\x9F\x90\x88"; // 🐈, four bytes each
  auto label = default_label(cats);
  CHECK(label.size() == 30 * 4 + 3);
  CHECK(default_label("line one\nline two") == "line one line two");
}

TEST_CASE("the subagent tool scope leaves out message spawn cron and MCP") {
  auto& tools = subagent_tools();
  for (auto* banned : {"message", "spawn", "cron"})
    CHECK(std::find(tools.begin(), tools.end(), banned) == tools.end());
  for (auto& t : tools)
    CHECK(t.rfind("mcp_", 0) != 0);
  CHECK(std::find(tools.begin(), tools.end(), "exec") != tools.end());
  CHECK(std::find(tools.begin(), tools.end(), "read_file") != tools.end());
}

TEST_CASE("results say what a run produced") {
  turn_outcome out;
  bool ok = false;
  out.stop_reason = "completed";
  out.final_content = "3 files";
  CHECK(result_text(out, ok) == "3 files");
  CHECK(ok);
  out.final_content.clear();
  CHECK(result_text(out, ok).find("no final response") != std::string::npos);
  out.stop_reason = "tool_error";
  out.final_content = "exec: Error: boom\n\n[Analyze the error above and try "
                      "a different approach.]";
  out.new_messages = {
    R"({"role":"tool","name":"list_dir","content":"a.txt"})",
    R"({"role":"tool","name":"exec","content":"Error: boom"})"};
  auto text = result_text(out, ok);
  CHECK_FALSE(ok);
  CHECK(text.find("Completed steps:\n- list_dir: a.txt") != std::string::npos);
  CHECK(text.find("Failure: exec: Error: boom") != std::string::npos);
  CHECK(text.find("[Analyze") == std::string::npos);
  out.stop_reason = "error";
  out.final_content = "Sorry, the model failed.";
  CHECK(result_text(out, ok) == "Sorry, the model failed.");
  CHECK_FALSE(ok);
  auto a = announce_text("count", "count files", "3 files", true);
  CHECK(a.rfind("[Subagent 'count' completed successfully]", 0) == 0);
  CHECK(a.find("Task: count files") != std::string::npos);
  CHECK(a.find("Result:\n3 files") != std::string::npos);
  CHECK(announce_text("c", "t", "r", false).find("failed]")
        != std::string::npos);
  CHECK(limit_text(1, 1).find("concurrency limit reached (1/1 running)")
        != std::string::npos);
  CHECK(started_text("count", "0badf00d").find("[count] started (id: 0badf00d)")
        != std::string::npos);
}
