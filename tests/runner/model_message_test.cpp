// Made messages: the text and estimate a request is put together from.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "actors/runner/context_governor.hpp"
#include "actors/runner/model_message.hpp"

using nlohmann::json;

TEST_CASE("a made message carries its compact text and its estimate") {
  json m{{"role", "user"}, {"content", "line \"one\"\nline two"}};
  auto made = nb::make_model_message(m);
  CHECK(made->form() == m);
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
    as_json.push_back(m->form());
  CHECK(text == nb::govern_messages(as_json, lim).dump());
  CHECK(text.find(made[0]->text()) != std::string::npos);
  CHECK(text.find(made[2]->text()) == std::string::npos);
  CHECK(text.find("(truncated)") != std::string::npos);
  // The made messages themselves are never changed.
  CHECK(made[2]->fields()["content"].get<std::string>().size() == 400);
}

TEST_CASE("a transcript line's made message reads the line's own fields") {
  // A stored line: the model's fields beside bookkeeping it is never sent.
  auto line = std::make_shared<const json>(json{
    {"role", "assistant"}, {"content", "done"}, {"timestamp", "2026-12-05T03:41"},
    {"model", "m1"}, {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}}}});
  json form{{"role", "assistant"}, {"content", "done"}};
  nb::model_message made{line, form};
  CHECK(made.reads_line()); // no second copy of role and content
  CHECK(&made.fields() == line.get());
  CHECK(made.form() == form);
  CHECK(made.text() == form.dump());
  CHECK(made.tokens() == nb::estimate_message_tokens(form));
  // A form that is not the line's fields (arguments written as a string,
  // a name the line lacks) keeps its own copy.
  json call{{"id", "c1"}, {"function", {{"name", "exec"}, {"arguments", {{"cmd", "ls"}}}}}};
  auto calling = std::make_shared<const json>(json{
    {"role", "assistant"}, {"content", nullptr}, {"tool_calls", {call}}});
  json fixed_call = call;
  fixed_call["type"] = "function";
  fixed_call["function"]["arguments"] = "{\"cmd\":\"ls\"}";
  json fixed{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", {fixed_call}}};
  nb::model_message own{calling, fixed};
  CHECK_FALSE(own.reads_line());
  CHECK(own.fields() == fixed);
  CHECK(own.form() == fixed);
}

TEST_CASE("a changed copy of a line's made message never carries its bookkeeping") {
  nb::governor_limits lim{1000000, 1000, 50};
  json call{{"id", "c1"}, {"type", "function"},
            {"function", {{"name", "exec"}, {"arguments", "{}"}}}};
  std::vector<json> lines{
    {{"role", "user"}, {"content", "run it"}},
    {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({call})}},
    // Over max_tool_result_chars: the request carries a shortened copy.
    {{"role", "tool"}, {"tool_call_id", "c1"}, {"name", "exec"},
     {"content", std::string(400, 'r')}}};
  std::vector<nb::shared_model_message> made;
  json plain = json::array();
  for (auto& form : lines) {
    json stored = form;
    stored["timestamp"] = "2026-12-05T03:41:41";
    stored["usage"] = {{"prompt_tokens", 10}};
    made.push_back(std::make_shared<const nb::model_message>(
      std::make_shared<const json>(stored), form));
    CHECK(made.back()->reads_line());
    plain.push_back(form);
  }
  // The same request as from the plain forms: the shortened result is a
  // copy of the model's fields alone.
  auto text = nb::govern_messages_text(made, lim);
  CHECK(text == nb::govern_messages(plain, lim).dump());
  CHECK(text.find("(truncated)") != std::string::npos);
  CHECK(text.find("timestamp") == std::string::npos);
  CHECK(text.find("usage") == std::string::npos);
}
