// OpenAI's hosted web search (a web_search entry in
// providers.openai.extraBody.tools) on a real gateway: while the scripted
// Responses server runs the search in a streamed answer, the user sees a
// tool-hint progress line for it, as the original shows one, through the
// channel manager's usual rules (channels.sendProgress, sendToolHints).
#include <doctest/doctest.h>

#include "tests/support/fake_openai_responses.hpp"
#include "tests/websocket/goal_rig.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;
namespace rs = nb::test::responses;

namespace {

/// A streaming WebUI, the model gpt-5 at the scripted server through
/// OpenAI's provider with a hosted web search; `adjust` then.
gateway hosted_search_gateway(const std::function<void(settings&)>& adjust) {
  return gateway{{{"websocket", R"({"enabled": true, "port": 0,
                                    "streaming": true})"}},
                 [&](settings& cfg) {
                   auto base = cfg.providers["custom"].api_base;
                   cfg.providers.erase("custom");
                   cfg.agent.model = "gpt-5";
                   cfg.agent.provider = "openai";
                   auto& p = cfg.providers["openai"];
                   p.api_key = "sk-openai-test";
                   p.api_base = base;
                   p.extra_body = R"({"tools": [{"type": "web_search"}]})";
                   if (adjust)
                     adjust(cfg);
                 }};
}

/// ann asks; the events of her one turn, the answer streamed.
std::vector<json> ask_with_search(gateway& gw, ws_client& c) {
  gw.llm.push(rs::stream(json::array(
    {rs::web_search_call_item(
       "ws_1", {"nanobot latest release"},
       json::array({{{"url", "https://example.com/nanobot"},
                     {"title", "nanobot releases"}}})),
     rs::message_item("msg_1", "Version 2 is out.")})));
  return ann_says(gw, c, "s1", "what is nanobot's latest release?");
}

std::vector<json> hosted_hints(const std::vector<json>& evs) {
  std::vector<json> out;
  for (auto& e : of_kind(evs, "message"))
    if (e.value("kind", "") == "tool_hint")
      out.push_back(e);
  return out;
}

std::string streamed_text(const std::vector<json>& evs) {
  std::string out;
  for (auto& e : of_kind(evs, "delta"))
    out += e.value("text", "");
  return out;
}

} // namespace

TEST_CASE("hosted web search: a progress line while the provider searches") {
  auto gw = hosted_search_gateway({});
  ws_client c;
  auto evs = ask_with_search(gw, c);
  auto hints = hosted_hints(evs);
  REQUIRE(hints.size() == 1);
  CHECK(hints[0]["text"] == "web_search");
  CHECK(hints[0]["chat_id"] == "s1");
  // The line comes while the answer is under way, before its text.
  auto hint_at = std::find(evs.begin(), evs.end(), hints[0]);
  auto first_delta = std::find_if(evs.begin(), evs.end(), [](const json& e) {
    return is(e, "delta");
  });
  CHECK(hint_at < first_delta);
  CHECK(streamed_text(evs) == "Version 2 is out.");
  // One model call: the provider ran the search, not our tools.
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].path == "/v1/responses");
  CHECK(reqs[0].body["tools"].back() == json{{"type", "web_search"}});
}

TEST_CASE("hosted web search: sendToolHints and sendProgress false hide the "
          "line") {
  for (auto setting : {"sendToolHints", "sendProgress"}) {
    CAPTURE(setting);
    auto gw = hosted_search_gateway([&](settings& cfg) {
      if (std::string{setting} == "sendToolHints")
        cfg.channels_common.send_tool_hints = false;
      else
        cfg.channels_common.send_progress = false;
    });
    ws_client c;
    auto evs = ask_with_search(gw, c);
    CHECK(hosted_hints(evs).empty());
    CHECK(streamed_text(evs) == "Version 2 is out.");
    CHECK(gw.llm.requests().size() == 1);
  }
}
