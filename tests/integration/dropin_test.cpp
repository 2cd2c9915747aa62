// A nanobot home made by the original program (tests/fixtures/nanobot-home,
// copied unchanged) used by ours: the session continues with its history
// (its cron: dropin_cron_test.cpp); a home ours made carries every marker
// and lock the original expects, checked against the fixture field by
// field; the original's command-line spellings.
#include <doctest/doctest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <regex>
#include <set>

#include <httplib.h>

#include "actors/store/session_files.hpp"
#include "tests/integration/child_process.hpp"
#include "tests/integration/dropin_home.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

using namespace nb::test::dropin;

TEST_CASE("the original's session continues with its history through agent -m") {
  fake_llm llm;
  fixture_home h;
  auto before = lines_of(h.sessions() + "/Y2xpOmRpcmVjdA.jsonl");
  child_process agent{{nanobot_binary(), "agent", "-c", h.config, "-m",
                       "What else is on the list?"},
                      h.home.dir.string(), h.env(llm)};
  REQUIRE(agent.wait(60s) == 0);
  CHECK(agent.out().find("echo: What else is on the list?") != std::string::npos);

  // The model saw the whole conversation, tool calls and results included,
  // and not the command exchange.
  REQUIRE(llm.request_count() >= 1);
  auto msgs = llm.requests().back().body["messages"];
  std::string seen = msgs.dump();
  CHECK(seen.find("What is in notes.txt?") != std::string::npos);
  CHECK(seen.find("call_9f2a41") != std::string::npos);
  CHECK(seen.find("call_b7c3d0") != std::string::npos);
  CHECK(seen.find("buy oat milk") != std::string::npos);
  CHECK(seen.find("bread is on the list now") != std::string::npos);
  CHECK(seen.find("🐈 nanobot v0.2.1") == std::string::npos);
  bool tool_pairs = false;
  for (auto& m : msgs)
    if (m.value("role", "") == "tool" && m.value("tool_call_id", "") == "call_9f2a41")
      tool_pairs = true;
  CHECK(tool_pairs);

  // The file kept every old line and gained the new turn in the original's
  // shapes; no session without a key appeared.
  auto after = lines_of(h.sessions() + "/Y2xpOmRpcmVjdA.jsonl");
  REQUIRE(after.size() == before.size() + 2);
  for (size_t i = 1; i < before.size(); ++i)
    CHECK(after[i] == before[i]);
  CHECK(after[0]["_type"] == "metadata");
  CHECK(after[0]["key"] == "cli:direct");
  CHECK(after[0]["created_at"] == before[0]["created_at"]);
  // Moved to the new turn: the original orders its sessions by it.
  CHECK(after[0]["updated_at"].get<std::string>()
        >= after.back()["timestamp"].get<std::string>());
  for (auto* k : {"_type", "key", "created_at", "updated_at", "metadata",
                  "last_consolidated"})
    CHECK(after[0].contains(k));
  auto& user = after[before.size()];
  auto& reply = after[before.size() + 1];
  CHECK(user["role"] == "user");
  CHECK(user["content"] == "What else is on the list?");
  CHECK(python_iso(user["timestamp"].get<std::string>()));
  CHECK(reply["role"] == "assistant");
  // The fake echoes the whole user message, our runtime block included.
  CHECK(reply["content"].get<std::string>().rfind(
          "echo: What else is on the list?", 0)
        == 0);
  CHECK(python_iso(reply["timestamp"].get<std::string>()));
  CHECK(session_keys(h.sessions())
        == std::set<std::string>{"cli:direct", "telegram:4242"});

  // The markers: same id (the recorded /home/alice path does not exist
  // here, so this home moved), the marker now names where it lives.
  CHECK(read_all(h.ws + "/.nanobot/workspace-id") == fixture_id + "\n");
  CHECK(read_all(h.sessions() + "/.workspace")
        == fs::canonical(h.ws).string() + "\n");
}

TEST_CASE("a home our binary made carries the original's markers and locks") {
  fake_llm llm;
  fixture_home original; // the reference, unchanged
  temp_home fresh;
  auto dot = (fresh.dir / ".nanobot").string();
  fs::create_directories(dot);
  fs::copy_file(original.config, dot + "/config.json");
  std::vector<std::string> env{"HOME=" + fresh.dir.string(),
                               "NANOBOT_FIXTURE_API_BASE=" + llm.base_url()};
  // A turn with a tool call, as the fixture's conversation has.
  llm.push(tool_calls({call("call_1", "list_dir", {{"path", "."}})}));
  llm.push(text("The workspace holds the usual files."));
  child_process agent{{nanobot_binary(), "agent", "-c", dot + "/config.json",
                       "-m", "hello"},
                      fresh.dir.string(), env};
  REQUIRE(agent.wait(60s) == 0);
  child_process cron{{nanobot_binary(), "cron", "list", "-c",
                      dot + "/config.json"},
                     fresh.dir.string(), env};
  REQUIRE(cron.wait(30s) == 0);

  auto ws = dot + "/workspace";
  auto id = read_all(ws + "/.nanobot/workspace-id");
  REQUIRE(std::regex_match(id, std::regex{"^[0-9a-f]{32}\n$"}));
  id.pop_back();
  auto sessions = dot + "/sessions/" + id;
  // Every marker and lock file the fixture has, in the same places.
  for (auto& rel : {std::string{"sessions/.workspace-migration.lock"},
                    "sessions/" + id + "/.workspace",
                    "sessions/" + id + "/.session-files.lock",
                    "sessions/" + id + "/Y2xpOmRpcmVjdA.jsonl",
                    std::string{"workspace/.nanobot/workspace-id"},
                    std::string{"workspace/cron.lock"}}) {
    INFO(rel);
    CHECK(fs::exists(dot + "/" + rel));
  }
  CHECK(read_all(sessions + "/.workspace")
        == fs::canonical(ws).string() + "\n");
  // The session file, field by field against the fixture's.
  auto ours = lines_of(sessions + "/Y2xpOmRpcmVjdA.jsonl");
  auto theirs = lines_of(original.sessions() + "/Y2xpOmRpcmVjdA.jsonl");
  REQUIRE(ours.size() == 5); // metadata, user, call, result, answer
  CHECK(keys_of(ours[0]) == keys_of(theirs[0]));
  CHECK(ours[0]["_type"] == "metadata");
  CHECK(ours[0]["key"] == "cli:direct");
  CHECK(ours[0]["metadata"].is_object());
  CHECK(ours[0]["last_consolidated"].is_number_integer());
  for (auto* k : {"created_at", "updated_at"}) {
    CHECK(python_iso(ours[0][k].get<std::string>()));
    CHECK(python_iso(theirs[0][k].get<std::string>()));
  }
  // Message lines: the fixture's required fields with the same types; any
  // extra field of ours is one the original ignores (no "_type").
  for (size_t i = 1; i < ours.size(); ++i) {
    auto& m = ours[i];
    INFO(m.dump());
    CHECK(m["role"].is_string());
    CHECK(python_iso(m["timestamp"].get<std::string>()));
    CHECK_FALSE(m.contains("_type"));
  }
  // user, assistant with tool calls, tool result, answer: each has every
  // field of the fixture's line of that kind, with the same JSON types.
  auto same_fields = [](const json& ours_line, const json& theirs_line) {
    INFO(ours_line.dump());
    for (auto& [k, v] : theirs_line.items()) {
      if (k == "reasoning_content" || k == "latency_ms")
        continue; // present only when the model gave reasoning / timing
      INFO(k);
      REQUIRE(ours_line.contains(k));
      CHECK(ours_line[k].type() == v.type());
    }
  };
  same_fields(ours[1], theirs[1]);  // user
  same_fields(ours[2], theirs[8]);  // tool call, content null
  same_fields(ours[3], theirs[9]);  // tool result
  CHECK(ours[2]["content"].is_null());
  auto& called = ours[2]["tool_calls"][0];
  auto& fixture_call = theirs[8]["tool_calls"][0];
  CHECK(keys_of(called) == keys_of(fixture_call));
  CHECK(keys_of(called["function"]) == keys_of(fixture_call["function"]));
  CHECK(called["type"] == "function");
  CHECK(called["function"]["arguments"].is_string());
  CHECK(ours[3]["tool_call_id"] == "call_1");
  CHECK(ours[3]["name"] == "list_dir");
  CHECK(ours[4]["role"] == "assistant");
  CHECK(ours[4]["content"] == "The workspace holds the usual files.");
  // The metadata line's updated_at is the last write, as the original
  // orders its sessions by it.
  CHECK(ours[0]["updated_at"].get<std::string>()
        >= ours[4]["timestamp"].get<std::string>());
}

TEST_CASE("agent -m /new waits for the archive it started before exiting") {
  fake_llm llm;
  fixture_home h;
  // The summary takes a while: the process must not end before it is in.
  auto slow = text("Alice asked what is in notes.txt and added bread to it.");
  slow.delay = 1500ms;
  llm.push(slow);
  auto before = lines_of(h.ws + "/memory/history.jsonl").size();
  child_process agent{{nanobot_binary(), "agent", "-c", h.config, "-m", "/new"},
                      h.home.dir.string(), h.env(llm)};
  REQUIRE(agent.wait(60s) == 0);
  CHECK(agent.out().find("New session started") != std::string::npos);
  CHECK(agent.err().find("finishing background work") != std::string::npos);
  auto history = lines_of(h.ws + "/memory/history.jsonl");
  REQUIRE(history.size() == before + 1);
  CHECK(history.back()["content"].get<std::string>().find("added bread")
        != std::string::npos);
  CHECK(history.back()["cursor"] == 4);
  // The conversation itself was emptied.
  auto file = lines_of(h.sessions() + "/Y2xpOmRpcmVjdA.jsonl");
  CHECK(file.size() == 1);
}

TEST_CASE("the original's consolidation mark is ours: /new archives only what it had not") {
  fake_llm llm;
  fixture_home h;
  // The original summarised the first exchange (4 messages) already.
  auto path = h.sessions() + "/Y2xpOmRpcmVjdA.jsonl";
  auto lines = lines_of(path);
  lines[0]["last_consolidated"] = 4;
  {
    std::ofstream out{path, std::ios::trunc};
    for (auto& l : lines)
      out << l.dump() << "\n";
  }
  llm.push(text("Alice added bread to her list."));
  auto before = lines_of(h.ws + "/memory/history.jsonl").size();
  child_process agent{{nanobot_binary(), "agent", "-c", h.config, "-m", "/new"},
                      h.home.dir.string(), h.env(llm)};
  REQUIRE(agent.wait(60s) == 0);
  REQUIRE(llm.request_count() == 1);
  auto asked = llm.requests()[0].body["messages"].dump();
  CHECK(asked.find("Add bread to the list") != std::string::npos);
  CHECK(asked.find("What is in notes.txt?") == std::string::npos);
  CHECK(lines_of(h.ws + "/memory/history.jsonl").size() == before + 1);
  // Emptied, the mark back to 0 where the original keeps it.
  auto after = lines_of(path);
  REQUIRE(after.size() == 1);
  CHECK(after[0]["last_consolidated"] == 0);
  CHECK_FALSE(after[0]["metadata"].contains("last_consolidated"));
}

TEST_CASE("the original's command-line spellings work and typos get a hint") {
  fake_llm llm;
  fixture_home h;
  // -w points the agent at another workspace, as in the original.
  auto other = (h.home.dir / "other-ws").string();
  child_process agent{{nanobot_binary(), "agent", "-c", h.config, "-w", other,
                       "--no-markdown", "-m", "hi"},
                      h.home.dir.string(), h.env(llm)};
  REQUIRE(agent.wait(60s) == 0);
  CHECK(fs::exists(other + "/.nanobot/workspace-id"));
  CHECK(read_all(h.ws + "/.nanobot/workspace-id") == fixture_id + "\n");

  auto typo = run({nanobot_binary(), "gateway", "--forground", "-c", h.config},
                  h.home.dir.string(), 30s);
  CHECK(typo.code == 2);
  CHECK(typo.err.find("did you mean '--foreground'?") != std::string::npos);

  // Keys of the original this build does not act on are listed by status.
  auto cfg_path = (h.home.dir / "status.json").string();
  std::ofstream{cfg_path} << json{{"agents",
                                   {{"defaults", {{"workspace", h.ws}}}}},
                                  {"tools",
                                   {{"my", {{"allowSet", true}}}}}}
                               .dump();
  auto status = run({nanobot_binary(), "status", "-c", cfg_path},
                    h.home.dir.string(), 30s);
  CHECK(status.code == 0);
  CHECK(status.out.find("Accepted, not used:\n  tools.my.allowSet: "
                        "accepted, not used")
        != std::string::npos);
}

TEST_CASE("serve runs the API alone on the given port") {
  fake_llm llm;
  fixture_home h;
  int port = free_port();
  child_process serve{{nanobot_binary(), "serve", "-c", h.config, "-p",
                       std::to_string(port), "-t", "30"},
                      h.home.dir.string(), h.env(llm)};
  REQUIRE(serve.wait_for_log("serving the API", 20s));
  httplib::Client cli{"127.0.0.1", port};
  cli.set_read_timeout(30, 0);
  json body{{"model", "fixture-model"},
            {"messages", {{{"role", "user"}, {"content", "ping"}}}}};
  auto res = cli.Post("/v1/chat/completions", body.dump(), "application/json");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body.find("echo: ping") != std::string::npos);
  // No channels, cron or heartbeat: the queued cron changes stay queued.
  CHECK_FALSE(read_all(h.ws + "/cron/action.jsonl").empty());
  serve.signal(SIGTERM);
  CHECK(serve.wait(20s) == 0);
}
