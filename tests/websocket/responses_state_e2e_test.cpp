// The original's Responses state on a real gateway: a session file the
// original wrote after a Responses turn (its private provider_state line,
// tests/fixtures/responses-session) is continued by a turn of ours through
// the WebUI on a Chat Completions model; the model gets the file's history,
// and the state is dropped, as the original's observe_response drops it
// after an answer that carries none: the original, going back, sends the
// whole transcript, our turn included.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "nb_test_paths.hpp"
#include "tests/websocket/goal_rig.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

/// The file's lines as JSON objects, in order.
std::vector<json> responses_file_lines(const std::string& path) {
  std::ifstream in{path};
  std::vector<json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty())
      out.push_back(json::parse(line));
  return out;
}

} // namespace

TEST_CASE("the original's Responses state is continued by our turns") {
  auto gw = goal_gateway();
  // The file's turns are days old: no idle archiving in this test.
  gw.cfg.agent.idle_compact_after_minutes = 0;
  gw.rt.reset();
  gw.rt = std::make_unique<runtime>(gw.cfg, true);
  auto fixture = std::string{NB_SOURCE_DIR}
                 + "/tests/fixtures/responses-session/session.jsonl";
  auto dir = resolve_sessions_dir(gw.cfg);
  REQUIRE(dir);
  auto path = *dir + "/" + session_file_name("websocket:resp1");
  std::filesystem::copy_file(fixture, path);
  auto state_before = responses_file_lines(fixture)[1];

  gw.llm.push(text("fine, thanks"));
  ws_client c;
  auto evs = ann_says(gw, c, "resp1", "how are you?");
  CHECK(answers(evs) == std::vector<std::string>{"fine, thanks"});
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 1);
  auto& msgs = reqs[0].body["messages"];
  REQUIRE(msgs.size() >= 4);
  CHECK(msgs[1] == json{{"role", "user"}, {"content", "hi"}});
  CHECK(msgs[2] == json{{"role", "assistant"}, {"content", "hello"}});

  auto lines = responses_file_lines(path);
  REQUIRE(lines.size() == 5); // metadata, four messages: no state line
  CHECK(lines[0]["_type"] == "metadata");
  CHECK(lines[0]["metadata"]["title"] == "Greeting");
  for (auto& line : lines)
    CHECK(line.value("_type", "") != "provider_state");
  CHECK(state_before["_type"] == "provider_state"); // the fixture had one
  CHECK(lines[1]["content"] == "hi");
  CHECK(lines[2]["content"] == "hello");
  CHECK(lines[3]["content"] == "how are you?");
  CHECK(lines[4]["content"] == "fine, thanks");
}
