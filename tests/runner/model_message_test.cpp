// Made messages: the text and estimate a request is put together from.
#include <doctest/doctest.h>

#include <string>

#include "actors/runner/context_governor.hpp"
#include "actors/runner/model_message.hpp"

using nlohmann::json;

TEST_CASE("a made message carries its compact text and its estimate") {
  json m{{"role", "user"}, {"content", "line \"one\"\nline two"}};
  auto made = nb::make_model_message(m);
  CHECK(made->message() == m);
  CHECK(made->text() == m.dump());
  CHECK(made->tokens() == nb::estimate_message_tokens(m));
  // Invalid UTF-8 (a stored line from elsewhere) still gives valid JSON.
  auto broken = nb::make_model_message(
    json{{"role", "user"}, {"content", std::string{"a\xff" "b"}}});
  auto back = json::parse(broken->text(), nullptr, false);
  REQUIRE(back.is_object());
  CHECK(back["content"] == "a\xEF\xBF\xBD" "b");
}

TEST_CASE("the request takes made texts as they are and rewrites what changed") {
  nb::governor_limits lim{1000000, 1000, 50};
  json call{{"id", "c1"}, {"type", "function"},
            {"function", {{"name", "exec"}, {"arguments", "{}"}}}};
  std::vector<nb::shared_model_message> made{
    nb::make_model_message({{"role", "user"}, {"content", "run it"}}),
    nb::make_model_message({{"role", "assistant"}, {"content", nullptr},
                            {"tool_calls", json::array({call})}}),
    // Over max_tool_result_chars: the request carries a shortened copy.
    nb::make_model_message({{"role", "tool"}, {"tool_call_id", "c1"},
                            {"name", "exec"}, {"content", std::string(400, 'r')}})};
  auto text = nb::govern_messages_text(made, lim);
  json as_json = json::array();
  for (auto& m : made)
    as_json.push_back(m->message());
  CHECK(text == nb::govern_messages(as_json, lim).dump());
  CHECK(text.find(made[0]->text()) != std::string::npos);
  CHECK(text.find(made[2]->text()) == std::string::npos);
  CHECK(text.find("(truncated)") != std::string::npos);
  // The made messages themselves are never changed.
  CHECK(made[2]->message()["content"].get<std::string>().size() == 400);
}
