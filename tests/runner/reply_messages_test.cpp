// The turn's usage on its last assistant message: the stored line must be
// what putting the fields on the parsed message gave.
#include <doctest/doctest.h>

#include <string>
#include <tuple>

#include "actors/runner/model_message.hpp"
#include "actors/runner/reply_messages.hpp"

using nlohmann::json;

namespace {

/// What the runner stored before the text was stamped in place: the
/// message parsed, the two fields set on it.
json stamped_by_parsing(const json& msg, json usage, const std::string& model) {
  auto m = json::parse(nb::make_model_message(msg)->text());
  m["usage"] = std::move(usage);
  m["model"] = model;
  return m;
}

} // namespace

TEST_CASE("a turn's usage and model go on its last assistant message") {
  json call{{"id", "c1"}, {"type", "function"},
            {"function", {{"name", "exec"}, {"arguments", "{\"a\":1}"}}}};
  json thinking = json::array({{{"type", "thinking"}, {"thinking", "hm"},
                                {"signature", "s"}}});
  nb::token_usage sum{120, 30, 150, 64, false};
  nb::token_usage estimated{9, 1, 10, 0, true};
  auto sum_json = json::parse(R"({"prompt_tokens":120,"completion_tokens":30,
    "cached_tokens":64,"total_tokens":150,"context_tokens":110,"requests":2})");
  auto estimated_json = json::parse(R"({"prompt_tokens":9,"completion_tokens":1,
    "cached_tokens":0,"total_tokens":10,"context_tokens":110,"requests":2,
    "estimated":true})");
  for (const json& msg :
       {json{{"role", "assistant"}, {"content", "done \"quoted\"\n"}},
        json{{"role", "assistant"}, {"content", nullptr},
             {"tool_calls", json::array({call})}},
        json{{"role", "assistant"}, {"content", "x"},
             {"reasoning_content", "why"}, {"thinking_blocks", thinking}},
        // Already carrying the fields: replaced, not written twice.
        json{{"role", "assistant"}, {"content", "y"}, {"model", "old"},
             {"usage", {{"total_tokens", 1}}}},
        json{{"role", "assistant"}, {"content", std::string{"caf\xc3\xa9 \xff"}}}}) {
    for (auto& [u, u_json, model] :
         {std::tuple{sum, sum_json, std::string{"gpt-x"}},
          std::tuple{estimated, estimated_json, std::string{"m\"\xff"}}}) {
      auto made = nb::make_model_message(msg);
      auto text = nb::stamped_with_usage(*made, u, 110, 2, model);
      CAPTURE(text);
      auto back = json::parse(text, nullptr, false);
      REQUIRE(back.is_object());
      auto want = stamped_by_parsing(msg, u_json, model);
      // The model's name as valid JSON text (a bad byte replaced).
      want["model"] = json::parse(
        json(model).dump(-1, ' ', false, json::error_handler_t::replace));
      CHECK(back == want);
    }
  }
}
