// The Responses conversation state of our own calls (issue 19): a turn
// resends the last answer's exact items (encrypted reasoning included)
// then only the new messages; the session file keeps them on the
// original's provider_state line; a restart goes on from that line; /new
// and a change of model start over with the whole transcript.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "actors/store/session_files.hpp"
#include "nb_test_paths.hpp"
#include "tests/integration/responses_state_rig.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
namespace rs = nb::test::responses;

TEST_CASE("responses state: a turn resends the last answer's items, then only "
          "its message; the file keeps them; a restart goes on from the file") {
  reasoning_server server;
  state_gateway gw{server};
  REQUIRE(gw.say_in("st", "first question", true).content == "answer 1");
  REQUIRE(gw.say_in("st", "second question", true).content == "answer 2");
  auto one = server.turn("first question");
  auto two = server.turn("second question");
  // (1) The first call's input and output items, exactly (the encrypted
  // reasoning too), then the new user message and nothing else.
  auto& input = two.body["input"];
  auto replayed = joined(one.body["input"], one.output);
  REQUIRE(input.size() == replayed.size() + 1);
  for (size_t i = 0; i < replayed.size(); ++i) {
    CAPTURE(i);
    CHECK(input[i] == replayed[i]);
  }
  CHECK(input[1]["encrypted_content"] == "gAAAA-opaque-1");
  CHECK(input.back()["role"] == "user");
  CHECK(two.body["store"] == false);
  CHECK(two.body["include"] == json::array({"reasoning.encrypted_content"}));
  CHECK(two.body["instructions"] == one.body["instructions"]);

  // (2) The original's record: {"_type": "provider_state", "state": {kind,
  // provider, model, version, payload {items, context_tokens},
  // pending_messages}} on the line after the metadata.
  auto line = gw.state_line("test:st");
  REQUIRE(line.is_object());
  auto& state = line["state"];
  CHECK(state["kind"] == "openai_responses");
  auto base = gw.llm.base_url();
  CHECK(state["provider"] == "openai_compat:openai:" + base);
  CHECK(state["model"] == "gpt-5");
  CHECK(state["version"] == 1);
  CHECK(state["payload"]["items"] == joined(input, two.output));
  CHECK(state["payload"]["context_tokens"] == 210);
  CHECK(state["pending_messages"] == json::array());
  // The transcript is the plain one beside it.
  auto saved = session_messages(gw.cfg, "test:st");
  REQUIRE(saved.size() == 4);
  CHECK(saved[3]["content"] == "answer 2");

  // (4) Restarted, the gateway goes on from the file's items.
  gw.restart();
  REQUIRE(gw.say_in("st", "third question", true).content == "answer 3");
  auto three = server.turn("third question");
  auto resumed = joined(input, two.output);
  REQUIRE(three.body["input"].size() == resumed.size() + 1);
  for (size_t i = 0; i < resumed.size(); ++i) {
    CAPTURE(i);
    CHECK(three.body["input"][i] == resumed[i]);
  }
}

TEST_CASE("responses state: /new and a change of model send the whole "
          "transcript again") {
  reasoning_server server;
  state_gateway gw{server};
  REQUIRE(gw.say_in("nw", "hello there", true).content == "answer 1");
  REQUIRE(gw.state_line("test:nw").is_object());
  // (3) /new: the state goes with the transcript.
  CHECK(gw.say_in("nw", "/new").content == "New session started.");
  auto calls_before = server.calls.load();
  REQUIRE_FALSE(gw.say_in("nw", "fresh start", true).timed_out);
  CHECK(server.calls.load() > calls_before);
  auto fresh = server.turn("fresh start");
  CHECK(fresh.body["input"].size() == 1);
  CHECK(reasoning_items(fresh.body["input"]) == 0);
  // The file has the new conversation's state.
  auto after_new = gw.state_line("test:nw");
  REQUIRE(after_new.is_object());
  CHECK(after_new["state"]["payload"]["items"].size() == 3);

  // (3) Another model: the saved items are not its own; the whole
  // transcript goes as converted messages, and its answer's state
  // replaces the old one.
  gw.cfg.agent.model = "gpt-5-mini";
  gw.restart();
  REQUIRE_FALSE(gw.say_in("nw", "other model now", true).timed_out);
  auto other = server.turn("other model now");
  auto& input = other.body["input"];
  CHECK(other.body["model"] == "gpt-5-mini");
  CHECK(reasoning_items(input) == 0);
  REQUIRE(input.size() == 3); // fresh start, its answer, this message
  CHECK(input[1]["type"] == "message");
  CHECK(input[1]["role"] == "assistant");
  auto line = gw.state_line("test:nw");
  REQUIRE(line.is_object());
  CHECK(line["state"]["model"] == "gpt-5-mini");
  CHECK(line["state"]["payload"]["items"].size() == 5);
}

TEST_CASE("responses state: a file the original left is continued from its "
          "items") {
  reasoning_server server;
  state_gateway gw{server};
  // The original's file (tests/fixtures/responses-session), its state made
  // for this endpoint: the provider names the apiBase it was made with.
  std::ifstream in{std::string{NB_SOURCE_DIR}
                   + "/tests/fixtures/responses-session/session.jsonl"};
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  REQUIRE(lines.size() == 4);
  auto record = json::parse(lines[1]);
  record["state"]["provider"] = "openai_compat:openai:" + gw.llm.base_url();
  auto items = record["state"]["payload"]["items"];
  auto dir = *resolve_sessions_dir(gw.cfg);
  std::filesystem::create_directories(dir);
  std::ofstream{dir + "/" + session_file_name("test:orig")}
    << lines[0] << "\n" << record.dump() << "\n" << lines[2] << "\n"
    << lines[3] << "\n";

  REQUIRE(gw.say_in("orig", "and now?", true).content == "answer 1");
  auto turn = server.turn("and now?");
  auto& input = turn.body["input"];
  REQUIRE(input.size() == items.size() + 1);
  for (size_t i = 0; i < items.size(); ++i)
    CHECK(input[i] == items[i]);
  CHECK(input[1]["encrypted_content"] == "gAAAAB-opaque");
  // Its state now ends with our answer; its transcript with our turn.
  auto line = gw.state_line("test:orig");
  REQUIRE(line.is_object());
  CHECK(line["state"]["payload"]["items"].size() == items.size() + 3);
  CHECK(session_messages(gw.cfg, "test:orig").size() == 4);
}

TEST_CASE("responses state: within a turn, a tool call's items are replayed "
          "once, then its result") {
  reasoning_server server;
  state_gateway gw{server};
  std::ofstream{gw.cfg.workspace_path() + "/notes.txt"} << "milk\n";
  auto reasoning = rs::reasoning_item("rs_t", "look first");
  reasoning["encrypted_content"] = "gAAAA-tool";
  json called = json::array(
    {reasoning, rs::function_call_item("fc_9", "call_9", "list_dir",
                                       R"({"path": "."})")});
  gw.llm.push(rs::stream(called, rs::usage(50, 5)));
  REQUIRE(gw.say_in("tl", "what files are there?", true).content
          == "answer 1");
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 2);
  auto& first = reqs[0].body["input"];
  auto& second = reqs[1].body["input"];
  auto replayed = joined(first, called);
  REQUIRE(second.size() == replayed.size() + 1);
  for (size_t i = 0; i < replayed.size(); ++i) {
    CAPTURE(i);
    CHECK(second[i] == replayed[i]);
  }
  CHECK(second.back()["type"] == "function_call_output");
  CHECK(second.back()["call_id"] == "call_9");
  CHECK(second.back()["output"].get<std::string>().find("notes.txt")
        != std::string::npos);
  // The file's state: both calls' items, nothing pending.
  auto line = gw.state_line("test:tl");
  REQUIRE(line.is_object());
  CHECK(line["state"]["payload"]["items"].size() == second.size() + 2);
  CHECK(line["state"]["pending_messages"] == json::array());
}

TEST_CASE("responses state: an answer refused for good drops the state; the "
          "next turn sends the whole transcript") {
  reasoning_server server;
  state_gateway gw{server};
  REQUIRE(gw.say_in("er", "before the error", true).content == "answer 1");
  REQUIRE(gw.state_line("test:er").is_object());
  // The endpoint rejects the replayed items (a 400 is not retried).
  gw.llm.push(rs::error(400, "The encrypted content could not be verified."));
  auto failed = gw.say_in("er", "this one fails", true);
  REQUIRE_FALSE(failed.timed_out);
  CHECK(failed.is_error);
  CHECK(gw.state_line("test:er").is_null());
  REQUIRE(gw.say_in("er", "after the error", true).content == "answer 2");
  auto after = server.turn("after the error");
  CHECK(reasoning_items(after.body["input"]) == 0);
  CHECK(after.body["input"].size() >= 3);
  CHECK(gw.state_line("test:er").is_object());
}
