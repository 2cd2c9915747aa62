// The OpenAI Responses API wire format (POST {apiBase}/responses): our
// OpenAI-shaped chat history in, Responses request bodies out; whole
// answers and SSE event streams back into model_reply values. Pure: bytes
// in, values out; no sockets, no clocks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/provider/wire_format.hpp"
#include "messages/model.hpp"

namespace nb {

/// Chat messages as Responses `input` items, as the original converts
/// them: the last system message becomes `instructions` (returned through
/// `instructions`, not an item); user content becomes input_text /
/// input_image parts; assistant text an output_text message item with an
/// id "msg_<index>"; each assistant tool call a function_call item whose
/// call_id and id come from our "call_id|item_id" tool-call id; each tool
/// result a function_call_output. `keep_reasoning` (DeepSeek, the
/// original's preserve_reasoning): an assistant's reasoning_content goes
/// first as a reasoning item with an output_text part. Returns false and
/// sets `error` when `messages` is not an array.
bool to_responses_input(const nlohmann::json& messages,
                        std::string& instructions, nlohmann::json& input,
                        std::string& error, bool keep_reasoning = false);

/// Chat-completions tool definitions ({"type": "function", "function":
/// {...}}) in the Responses' flat form {"type": "function", "name",
/// "description", "parameters"}; entries without a name are dropped.
nlohmann::json to_responses_tools(const nlohmann::json& tools);

/// Splits our tool-call id "call_id|item_id" (the item id may be absent).
void split_responses_call_id(const std::string& id, std::string& call_id,
                             std::string& item_id);

/// The whole request body: model, instructions, input, max_output_tokens,
/// store false, stream, temperature where the model takes one (not
/// gpt-5 / o1 / o3 / o4, not while reasoning), reasoning {effort} unless
/// the effort is "none", include reasoning.encrypted_content for reasoning
/// models, tools and tool_choice "auto"; then the user's extraBody (its
/// `tools` and `include` lists are added to ours).
std::string build_responses_body(const model_request& req,
                                 const std::string& model, std::string& error,
                                 const body_options& opts = {});

/// completed -> stop (tool_calls when the answer calls tools), incomplete
/// -> length (content_filter when that was the reason), failed /
/// cancelled -> error.
std::string map_responses_status(const nlohmann::json& response,
                                 bool has_tool_calls);

/// Responses usage: input_tokens, output_tokens, total_tokens and
/// input_tokens_details.cached_tokens.
token_usage read_responses_usage(const nlohmann::json& usage);

/// Fills `out` from a non-streamed Response object; returns "" or why the
/// body is not a usable answer (an error object, a failed response).
/// `out.conversation.record` gets the output items (a JSON array), which
/// settle_responses_state turns into the next state; the stream's finish()
/// does the same.
std::string parse_responses_body(std::string_view body, model_reply& out);

/// The progress piece for a web_search_call item OpenAI's hosted search
/// opened (a response.output_item.added event), as the original maps it:
/// tool "web_search", arguments {"query": ...} from action.queries (four at
/// most, joined by " · ") or action.query / pattern / url, {} while the
/// item names none (its query usually comes with its end). Nullopt for any
/// other event, or an item without an id (responses_hosted.cpp).
std::optional<stream_piece> hosted_search_started(const nlohmann::json& ev);

/// Rebuilds one streamed Response from its events: output_text deltas are
/// visible pieces, reasoning summary / reasoning text deltas reasoning
/// pieces; function calls are opened by output_item.added, filled by
/// function_call_arguments.delta / .done and closed by output_item.done;
/// response.completed / .incomplete end it with status and usage;
/// response.failed and error events make the stream unusable; a hosted
/// web search's start is a progress piece (hosted_search_started).
class responses_stream : public stream_decoder {
public:
  std::vector<stream_piece> apply(std::string_view data) override;
  bool finished() const override { return finished_; }
  const std::string& error() const override { return error_; }
  void finish(model_reply& out) override;

private:
  struct partial_call {
    std::string item_id;
    std::string name;
    std::string arguments;
    bool done = false;
  };
  std::vector<std::string> call_order_; ///< call_ids as they opened
  std::map<std::string, partial_call> calls_;
  std::string content_;
  std::string reasoning_;
  bool reasoning_streamed_ = false;
  nlohmann::json response_; ///< the terminal event's response object
  std::map<int64_t, nlohmann::json> done_items_; ///< by output_index
  std::string error_;
  bool finished_ = false;
};

} // namespace nb
