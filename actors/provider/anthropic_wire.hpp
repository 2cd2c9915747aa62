// Anthropic's Messages API wire format: OpenAI-shaped history in, Messages
// request bodies out; whole answers and SSE event streams back into
// model_reply values. Pure: no sockets, no clocks.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/provider/wire_format.hpp"
#include "messages/model.hpp"

namespace nb {

/// The anthropic-version header value sent with every call.
inline constexpr std::string_view anthropic_version = "2023-06-01";

/// Default for max_tokens, which the Messages API requires.
inline constexpr int32_t anthropic_default_max_tokens = 8192;

/// Converts OpenAI chat messages into Messages API form: system messages go
/// to `system` (text blocks), tool calls become tool_use blocks, tool
/// results tool_result blocks in a user turn, images image blocks,
/// assistant `thinking_blocks` are replayed first, consecutive same-role
/// turns are merged, and the conversation starts with a user turn and does
/// not end with an assistant one. Returns false and sets `error` when
/// `messages` is not an array.
bool to_anthropic_messages(const nlohmann::json& messages,
                           nlohmann::json& system, nlohmann::json& out,
                           std::string& error);

/// The whole request body: model, max_tokens, system, messages, tools,
/// temperature, stream; cache_control markers on the system prompt's last
/// block, the last tool definition and the second-to-last message; then
/// what `opts` adds (extended thinking, extraBody).
std::string build_anthropic_body(const model_request& req,
                                 const std::string& model, std::string& error,
                                 const body_options& opts = {});

/// tool_use -> tool_calls, end_turn / stop_sequence -> stop, max_tokens ->
/// length, refusal -> content_filter; others are kept as they are.
std::string map_stop_reason(std::string_view stop_reason);

/// Fills `out` from a non-streamed Messages API answer; returns "" or why
/// the body is not a usable answer.
std::string parse_anthropic_message(std::string_view body, model_reply& out);

/// Rebuilds one streamed answer from its events (message_start,
/// content_block_start/delta/stop, message_delta, message_stop, ping,
/// error). Text deltas are visible pieces, thinking deltas reasoning ones;
/// tool inputs are concatenated from input_json_delta pieces; thinking
/// blocks keep their signatures for replay.
class anthropic_stream : public stream_decoder {
public:
  std::vector<stream_piece> apply(std::string_view data) override;
  bool finished() const override { return stopped_ || !stop_reason_.empty(); }
  const std::string& error() const override { return error_; }
  void finish(model_reply& out) override;

private:
  struct block {
    nlohmann::json start; ///< the content_block of content_block_start
    std::string text;     ///< text / thinking / tool input pieces
    std::string signature;
  };
  std::map<int64_t, block> blocks_;
  std::string stop_reason_;
  token_usage usage_;
  std::string error_;
  bool stopped_ = false;
};

/// Anthropic usage: input + cache reads + cache writes are the prompt,
/// cache reads the cached part.
token_usage read_anthropic_usage(const nlohmann::json& usage);

} // namespace nb
