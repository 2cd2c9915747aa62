// Local-model quirks: <tool_call> text turned into real calls, <think>
// blocks kept out of the answer, in whole replies and in streams.
#include <doctest/doctest.h>

#include "actors/provider/text_quirks.hpp"
#include "tests/provider/client_fixture.hpp"

using namespace nb;
using namespace nb::test;

namespace {

/// Feeds `pieces` through a filter; returns visible and reasoning text.
std::pair<std::string, std::string> filter(std::vector<std::string> pieces) {
  quirk_filter f;
  std::string visible, reasoning;
  auto take = [&](std::vector<stream_piece> out) {
    for (auto& p : out)
      (p.reasoning ? reasoning : visible) += p.text;
  };
  for (auto& p : pieces)
    take(f.feed(p));
  take(f.flush());
  return {visible, reasoning};
}

} // namespace

TEST_CASE("tool_call text becomes real calls and leaves the visible text") {
  model_reply r;
  r.finish_reason = "stop";
  r.content = "I will read both.\n<tool_call>\n{\"name\": \"read_file\", "
              "\"arguments\": {\"path\": \"a.md\"}}\n</tool_call>\n"
              "<tool_call>```json\n{\"name\": \"list_dir\", \"arguments\": "
              "\"{\\\"path\\\": \\\".\\\"}\"}\n```</tool_call>";
  apply_text_quirks(r);
  CHECK(r.content == "I will read both.");
  CHECK(r.finish_reason == "tool_calls");
  REQUIRE(r.tool_calls.size() == 2);
  CHECK(r.tool_calls[0].name == "read_file");
  CHECK(json::parse(r.tool_calls[0].arguments_json) == json{{"path", "a.md"}});
  CHECK_FALSE(r.tool_calls[0].id.empty());
  CHECK(r.tool_calls[1].name == "list_dir");
  CHECK(json::parse(r.tool_calls[1].arguments_json) == json{{"path", "."}});
}

TEST_CASE("a tool_call block that is not a call stays visible") {
  model_reply r;
  r.finish_reason = "stop";
  r.content = "Use <tool_call>like this</tool_call> in prompts.";
  apply_text_quirks(r);
  CHECK(r.content == "Use <tool_call>like this</tool_call> in prompts.");
  CHECK(r.tool_calls.empty());
  CHECK(r.finish_reason == "stop");
}

TEST_CASE("structured calls win over duplicated tool_call text") {
  model_reply r;
  r.finish_reason = "tool_calls";
  r.tool_calls.push_back({"call_1", "exec", "{\"command\":\"ls\"}"});
  r.content = "<tool_call>{\"name\": \"exec\", \"arguments\": "
              "{\"command\": \"ls\"}}</tool_call>";
  apply_text_quirks(r);
  CHECK(r.content.empty());
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(r.tool_calls[0].id == "call_1");
}

TEST_CASE("think blocks move to reasoning") {
  model_reply r;
  r.content = "<think>\nThe user wants a greeting.\n</think>\n\nHello!";
  apply_text_quirks(r);
  CHECK(r.content == "Hello!");
  CHECK(r.reasoning_content == "The user wants a greeting.");
  model_reply bare; // servers that drop the opening tag
  bare.content = "first I think</think>The answer is 4.";
  apply_text_quirks(bare);
  CHECK(bare.content == "The answer is 4.");
  CHECK(bare.reasoning_content == "first I think");
  model_reply plain;
  plain.content = "a < b and b > c";
  apply_text_quirks(plain);
  CHECK(plain.content == "a < b and b > c");
}

TEST_CASE("the stream filter never leaks tags split across pieces") {
  auto [v1, r1] = filter({"Let me check. <to", "ol_call>{\"name\": \"x\"}",
                          "</tool_c", "all> done"});
  CHECK(v1 == "Let me check.  done");
  CHECK(r1.empty());
  auto [v2, r2] = filter({"<th", "ink>hmm, ", "let me see</thi", "nk>Yes."});
  CHECK(v2 == "Yes.");
  CHECK(r2 == "hmm, let me see");
  auto [v3, r3] = filter({"x <", "3 y", " <b>bold</b> <t"});
  CHECK(v3 == "x <3 y <b>bold</b> <t");
  CHECK(r3.empty());
}

TEST_CASE("a streamed text tool call becomes a call without tag deltas") {
  fake_llm llm;
  llm.push(stream_text({"Checking. ", "<tool", "_call>{\"name\": \"read_file\", ",
                        "\"arguments\": {\"path\": \"a.md\"}}</tool", "_call>"}));
  model_client client{choice_for(llm), fast()};
  recorder rec;
  auto r = client.chat(ask("go", true), rec.cb());
  CHECK(r.error.empty());
  std::string shown;
  for (auto& d : rec.deltas)
    shown += d;
  CHECK(shown == "Checking. ");
  CHECK(r.content == "Checking.");
  CHECK(r.finish_reason == "tool_calls");
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(r.tool_calls[0].name == "read_file");
}

TEST_CASE("reasoning_content and think text never reach the answer") {
  fake_llm llm;
  auto s = stream_text({"<think>plan</think>", "Done."});
  // A reasoning_content delta as DeepSeek and vLLM send it.
  s.events.insert(s.events.begin() + 1,
                  sse(chunk({{"reasoning_content", "more thoughts"}})));
  llm.push(s);
  model_client client{choice_for(llm), fast()};
  std::string visible, reasoning;
  callbacks cb;
  cb.on_delta = [&](std::string t, bool is_reasoning) {
    (is_reasoning ? reasoning : visible) += t;
  };
  auto r = client.chat(ask("go", true), cb);
  CHECK(visible == "Done.");
  CHECK(r.content == "Done.");
  CHECK(reasoning.find("plan") != std::string::npos);
  CHECK(reasoning.find("more thoughts") != std::string::npos);
  CHECK(r.reasoning_content.find("more thoughts") != std::string::npos);
  CHECK(r.reasoning_content.find("plan") != std::string::npos);
}
