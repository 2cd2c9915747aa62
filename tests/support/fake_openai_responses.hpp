// Scripted answers in OpenAI's Responses API wire format, for the same fake
// server (fake_llm serves POST .../responses next to .../chat/completions
// and .../messages, all from one script queue):
//
//   nb::test::fake_llm llm;
//   llm.push(nb::test::responses::stream_text({"Hel", "lo"}));
//   settings.providers["openai"].api_type = "responses";
//   ... llm.requests()[0].body["input"] ...
//
// Requests to .../responses with nothing queued get responses::echo().
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/fake_llm.hpp"

namespace nb::test::responses {

/// {"input_tokens": in, "input_tokens_details": {"cached_tokens": cached},
///  "output_tokens": out, "output_tokens_details": {"reasoning_tokens": 0},
///  "total_tokens": in + out}.
nlohmann::json usage(int in, int out, int cached = 0);

/// Output items as the API sends them (status "completed").
nlohmann::json message_item(std::string id, std::string text);
nlohmann::json function_call_item(std::string id, std::string call_id,
                                  std::string name, std::string arguments);
nlohmann::json reasoning_item(std::string id, std::string summary);
/// A hosted web search that ran `queries` and found `sources` (each
/// {"url", "title"}); stream() opens it without them, as the API does.
nlohmann::json web_search_call_item(std::string id,
                                    std::vector<std::string> queries,
                                    nlohmann::json sources = nlohmann::json::array());

/// A whole (non-streamed) Response object holding `output`.
fake_response response(nlohmann::json output,
                       nlohmann::json usage_obj = usage(12, 4),
                       std::string status = "completed");

/// A streamed Response as the API sends it: response.created,
/// response.in_progress, then per item output_item.added, its text /
/// summary / argument deltas in `pieces` parts (with the content_part and
/// .done events), output_item.done, and response.completed carrying the
/// items and `usage_obj`. Each frame is "event: <type>\ndata: <json>\n\n"
/// with a sequence_number. Function-call argument events name the item
/// (item_id), as the API does.
fake_response stream(nlohmann::json output,
                     nlohmann::json usage_obj = usage(12, 4), size_t pieces = 3,
                     std::string status = "completed");
/// A streamed answer of one message sent as exactly these text deltas.
fake_response stream_text(std::vector<std::string> pieces,
                          nlohmann::json usage_obj = usage(12, 4));
/// A streamed answer that calls `calls` (ids become call_id "call_<id>"
/// and item id "fc_<id>" unless they hold a '|').
fake_response stream_calls(std::vector<fake_call> calls,
                           nlohmann::json usage_obj = usage(12, 4));
/// response.created, then response.failed with {"code", "message"}.
fake_response stream_failed(std::string code, std::string message);
/// An HTTP error with an OpenAI error body ({"error": {"message", "type":
/// "invalid_request_error", "param", "code"}}).
fake_response error(int status, std::string message, std::string param = "");

/// "event: <ev.type>\ndata: <ev>\n\n" for hand-made streams.
std::string event(const nlohmann::json& ev);

/// "echo: <last user input_text>", streamed when the request asks for it.
fake_response echo(const nlohmann::json& body);

} // namespace nb::test::responses
