// A Chat Completions answer drops a saved Responses state (issue 19), as
// the original's observe_response does: with apiType chat_completions (so
// does a failure there that will not pass), and with apiType auto when the
// endpoint refuses the Responses API and the call falls back. The session file loses its provider_state line and the
// next Responses call sends the whole transcript, no stale items.
// "api.openai.com" (where auto uses the Responses API) is reached through a
// local forward proxy that sends every target to the scripted server.
#include <doctest/doctest.h>

#include "tests/integration/responses_state_rig.hpp"
#include "tests/support/forward_proxy.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

/// The last Chat Completions request the server was sent.
json last_chat_request(const fake_llm& llm) {
  auto all = llm.requests();
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (it->path.find("/chat/completions") != std::string::npos)
      return it->body;
  return nullptr;
}

/// Whether a Chat Completions request's messages include `text` from the
/// user.
bool chat_has_user_text(const json& body, const std::string& text) {
  for (auto& m : body["messages"])
    if (m.value("role", "") == "user"
        && m["content"].dump().find(text) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST_CASE("responses state: with apiType chat_completions an answer, or a "
          "failure that will not pass, drops it; back on Responses the "
          "whole transcript goes") {
  reasoning_server server;
  state_gateway gw{server};
  auto use_api = [&](const char* api_type) {
    gw.cfg.providers["openai"].api_type = api_type;
    gw.restart();
  };
  REQUIRE(gw.say_in("cc", "first question", true).content == "answer 1");
  REQUIRE(gw.state_line("test:cc").is_object());

  use_api("chat_completions");
  gw.llm.push(error(400, "This model's maximum context length is exceeded."));
  CHECK(gw.say_in("cc", "too long now", true).is_error);
  CHECK(gw.state_line("test:cc").is_null());

  use_api("responses");
  REQUIRE(gw.say_in("cc", "responses again", true).content == "answer 2");
  auto again = server.turn("responses again");
  CHECK(reasoning_items(again.body["input"]) == 0);
  auto& input = again.body["input"];
  REQUIRE(input.size() >= 4);
  CHECK(input[0]["content"][0]["text"] == "first question");
  REQUIRE(gw.state_line("test:cc").is_object());

  use_api("chat_completions");
  auto chat = gw.say_in("cc", "via chat now", true);
  CHECK(chat.content.rfind("echo: via chat now", 0) == 0);
  auto sent = last_chat_request(gw.llm);
  REQUIRE(sent.is_object());
  CHECK(chat_has_user_text(sent, "first question"));
  CHECK(gw.state_line("test:cc").is_null());
}

TEST_CASE("responses state: apiType auto falling back to Chat Completions "
          "drops it") {
  reasoning_server server;
  forward_proxy proxy;
  state_gateway gw{server, [&](settings& cfg) {
                     auto& p = cfg.providers["openai"];
                     p.api_base = "http://api.openai.com/v1";
                     p.api_type = "auto";
                     p.proxy = proxy.url();
                   }};
  proxy.route_all_to("127.0.0.1", gw.llm.port());
  REQUIRE(gw.say_in("au", "first question", true).content == "answer 1");
  REQUIRE(gw.state_line("test:au").is_object());

  // The endpoint refuses the Responses API this once: the same call goes
  // to Chat Completions and its answer ends the saved state.
  gw.llm.push(responses::error(400, "Unsupported parameter: "
                               "'max_output_tokens'", "max_output_tokens"));
  auto chat = gw.say_in("au", "refused now", true);
  REQUIRE_FALSE(chat.timed_out);
  CHECK(chat.content.rfind("echo: refused now", 0) == 0);
  CHECK(chat_has_user_text(last_chat_request(gw.llm), "first question"));
  CHECK(gw.state_line("test:au").is_null());

  // The breaker is not open after one refusal: Responses again, from the
  // whole transcript.
  REQUIRE(gw.say_in("au", "after the refusal", true).content == "answer 2");
  auto after = server.turn("after the refusal");
  CHECK(reasoning_items(after.body["input"]) == 0);
  CHECK(after.body["input"].size() == 5);
  CHECK(gw.state_line("test:au").is_object());
}
