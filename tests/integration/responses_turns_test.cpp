// Whole turns through the real actor tree against OpenAI's Responses API
// (providers.openai.apiType "responses"): a tool call round trip, the
// `input` items the server gets back, what the session file keeps.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/integration/gateway_fixture.hpp"
#include "tests/integration/harness.hpp"
#include "tests/integration/responses_gateway.hpp"
#include "tests/support/fake_openai_responses.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
namespace rs = nb::test::responses;

namespace {

struct responses_gateway : gateway_fixture {
  responses_gateway()
      : gateway_fixture(use_openai_responses) {}
};

/// The input items of `body` of type `type`.
std::vector<json> items_of(const json& body, const std::string& type) {
  std::vector<json> out;
  for (auto& item : body["input"])
    if (item.value("type", std::string{}) == type)
      out.push_back(item);
  return out;
}

} // namespace

TEST_CASE("responses: a tool call round trip through the gateway") {
  responses_gateway gw;
  std::ofstream{gw.cfg.workspace_path() + "/notes.txt"} << "milk\n";
  gw.llm.push(rs::stream_calls({call("1", "list_dir", json{{"path", "."}})},
                               rs::usage(200, 15, 128)));
  gw.llm.push(rs::stream_text({"There is ", "notes.txt."}, rs::usage(260, 5)));
  auto r = gw.say_in("r1", "what is in the workspace?", true);
  REQUIRE_FALSE(r.timed_out);
  CHECK_FALSE(r.is_error);
  CHECK(r.content == "There is notes.txt.");
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 2);
  for (auto& q : reqs) {
    CHECK(q.path == "/v1/responses");
    CHECK(q.headers["authorization"] == "Bearer sk-openai-test");
    CHECK(q.body["stream"] == true);
  }
  // The system prompt travels as instructions; tools are flat functions.
  auto& first = reqs[0].body;
  CHECK(first["instructions"].get<std::string>().size() > 100);
  CHECK(items_of(first, "function_call").empty());
  bool has_list_dir = false;
  for (auto& t : first["tools"]) {
    CHECK(t["type"] == "function");
    CHECK(t.contains("parameters"));
    has_list_dir = has_list_dir || t["name"] == "list_dir";
  }
  CHECK(has_list_dir);
  // The second call replays the call and carries its result.
  auto& second = reqs[1].body;
  auto calls = items_of(second, "function_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["call_id"] == "call_1");
  CHECK(calls[0]["id"] == "fc_1");
  CHECK(calls[0]["name"] == "list_dir");
  CHECK(json::parse(calls[0]["arguments"].get<std::string>())
        == json{{"path", "."}});
  auto outputs = items_of(second, "function_call_output");
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0]["call_id"] == "call_1");
  CHECK(outputs[0]["output"].get<std::string>().find("notes.txt")
        != std::string::npos);
  // The session keeps the original's compound id, so a later turn (or the
  // original reading this file) replays the same item.
  auto saved = session_messages(gw.cfg, "test:r1");
  bool kept = false;
  for (auto& m : saved)
    if (m.contains("tool_calls"))
      kept = kept || m["tool_calls"][0]["id"] == "call_1|fc_1";
  CHECK(kept);
}
