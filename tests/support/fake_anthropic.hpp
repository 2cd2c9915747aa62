// Scripted answers in Anthropic's Messages API wire format, for the same
// fake server (fake_llm serves POST .../messages next to
// .../chat/completions):
//
//   nb::test::fake_llm llm;
//   llm.push(nb::test::anthropic::stream_text({"Hel", "lo"}));
//   choice.api = nb::wire_api::anthropic; choice.api_base = llm.base_url();
//
// Requests to .../messages with nothing queued get anthropic::echo().
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/fake_llm.hpp"

namespace nb::test::anthropic {

/// {"input_tokens": in, "output_tokens": out, "cache_read_input_tokens":
/// cached, "cache_creation_input_tokens": 0}.
nlohmann::json usage(int in, int out, int cached = 0);

/// Content blocks.
nlohmann::json text_block(std::string text);
nlohmann::json tool_use_block(std::string id, std::string name,
                              nlohmann::json input);
nlohmann::json thinking_block(std::string thinking, std::string signature);

/// A whole (non-streamed) message with `content` blocks.
fake_response message(nlohmann::json content,
                      std::string stop_reason = "end_turn",
                      nlohmann::json usage_obj = usage(12, 4));
/// A whole message holding one text block.
fake_response text(std::string text);

/// A streamed message: message_start, a ping, each block as
/// content_block_start, its text / thinking / input JSON in `pieces`
/// deltas (thinking also gets a signature_delta), content_block_stop, then
/// message_delta with the stop reason and usage, and message_stop.
fake_response stream(nlohmann::json content,
                     std::string stop_reason = "end_turn",
                     nlohmann::json usage_obj = usage(12, 4),
                     size_t pieces = 3);
/// A streamed message of one text block sent as exactly these deltas.
fake_response stream_text(std::vector<std::string> pieces,
                          nlohmann::json usage_obj = usage(12, 4));

/// An HTTP error with an Anthropic error body ({"type": "error", "error":
/// {"type": ..., "message": ...}}); `retry_after` sets Retry-After.
fake_response error(int status, std::string type, std::string message,
                    std::optional<int> retry_after = std::nullopt);

/// "event: <ev.type>\ndata: <ev>\n\n" for hand-made streams.
std::string event(const nlohmann::json& ev);

/// "echo: <last user text>", streamed when the request asks for it.
fake_response echo(const nlohmann::json& body);

} // namespace nb::test::anthropic
