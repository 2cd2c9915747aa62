// `nanobot sessions list|show|restore-workspace` over sessions the real
// `nanobot agent` wrote, and agent's -w and --no-markdown.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/cli/cli_home.hpp"
#include "tests/support/fake_llm.hpp"

using namespace nb::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json provider_of(const fake_llm& llm) {
  return {{"providers", {{"custom", {{"apiBase", llm.base_url()}}}}}};
}

} // namespace

TEST_CASE("sessions list and show what agent wrote, tool calls included") {
  fake_llm llm;
  cli_home h{provider_of(llm)};
  auto r = h.nanobot({"sessions", "list"});
  CHECK(r.code == 0);
  CHECK(r.out == "No sessions.\n");
  llm.push(tool_calls({call("c1", "list_dir", json{{"path", "."}}.dump())}));
  llm.push(text("The folder is empty."));
  r = h.nanobot({"agent", "-m", "what is here?", "--no-stream"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  llm.push(text("Hello there."));
  r = h.nanobot({"agent", "-m", "hi", "-s", "telegram:42", "--no-stream"});
  REQUIRE_MESSAGE(r.code == 0, r.err);

  r = h.nanobot({"sessions", "list"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "KEY"));
  CHECK(has(r.out, "MESSAGES"));
  // Newest first.
  auto tg = r.out.find("telegram:42");
  auto cli = r.out.find("cli:direct");
  REQUIRE(tg != std::string::npos);
  REQUIRE(cli != std::string::npos);
  CHECK(tg < cli);
  auto cli_line = r.out.substr(cli, r.out.find('\n', cli) - cli);
  CHECK(has(cli_line, " cli "));
  CHECK(cli_line.back() == '4'); // user, tool call, tool result, answer

  r = h.nanobot({"sessions", "show", "cli:direct"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "user: what is here?"));
  CHECK(has(r.out, "-> list_dir({\"path\":\".\"})  [c1]"));
  CHECK(has(r.out, "tool (list_dir, c1):"));
  CHECK(has(r.out, "assistant: The folder is empty."));

  r = h.nanobot({"sessions", "show", "cli:direkt"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "did you mean 'cli:direct'?"));
  r = h.nanobot({"sessions", "shwo"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "did you mean 'show'?"));
}

TEST_CASE("sessions restore-workspace copies the files back for a downgrade") {
  fake_llm llm;
  cli_home h{provider_of(llm)};
  llm.push(text("ok"));
  auto r = h.nanobot({"agent", "-m", "remember me", "--no-stream"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  r = h.nanobot({"sessions", "restore-workspace"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "Restored 1 session file(s) to " + h.workspace
                     + "/sessions; 0 already matched."));
  // The file under the config folder, byte for byte, same name.
  std::string src;
  for (auto& e : fs::recursive_directory_iterator(h.home.at("sessions")))
    if (e.path().extension() == ".jsonl")
      src = e.path().string();
  REQUIRE_FALSE(src.empty());
  auto dst = h.workspace + "/sessions/" + fs::path{src}.filename().string();
  CHECK(read_all(dst) == read_all(src));
  CHECK(has(read_all(dst), "remember me"));

  r = h.nanobot({"sessions", "restore-workspace"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "Restored 0 session file(s)"));
  CHECK(has(r.out, "1 already matched."));
  // A different file in the way is left alone and reported.
  write_all(dst, "{}\n");
  r = h.nanobot({"sessions", "restore-workspace"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "Rollback is incomplete"));
  CHECK(has(r.err, dst));
  CHECK(read_all(dst) == "{}\n");
}

TEST_CASE("agent -w uses that workspace and --no-markdown prints the text") {
  fake_llm llm;
  cli_home h{provider_of(llm)};
  auto other = h.home.at("other-ws");
  llm.push(text("**bold** and `code`\n\n# Title"));
  auto r = h.nanobot(
    {"agent", "-w", other, "-m", "hi", "--no-markdown", "--no-stream"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out == "**bold** and `code`\n\n# Title\n");
  CHECK(r.out.find('\033') == std::string::npos);
  CHECK(r.err.find('\033') == std::string::npos);
  // The session belongs to the other workspace.
  CHECK(fs::exists(other + "/.nanobot/workspace-id"));
  r = h.nanobot({"sessions", "list", "-w", other});
  CHECK(has(r.out, "cli:direct"));
  r = h.nanobot({"sessions", "list"});
  CHECK(r.out == "No sessions.\n");
  // --markdown is accepted too.
  llm.push(text("plain"));
  r = h.nanobot({"agent", "--markdown", "-m", "again", "--no-stream"});
  CHECK(r.code == 0);
  CHECK(r.out == "plain\n");
}
