// The OpenAI chat-completions wire format: request bodies, whole responses
// and SSE streams. Pure: bytes in, values out; no sockets, no clocks.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "actors/provider/wire_format.hpp"
#include "messages/model.hpp"

namespace nb {

/// Builds the JSON body for `req` sent as `model`, with what `opts` adds
/// (request_extras.hpp). Returns "" and sets `error` when messages_json /
/// tools_json are not JSON arrays.
std::string build_chat_body(const model_request& req, const std::string& model,
                            std::string& error, const body_options& opts = {});

/// Fills content, reasoning, tool calls, finish reason and usage of `out`
/// from a non-streamed response body. Returns "" or a sentence explaining
/// why the body is not a usable completion (HTML page, truncated JSON,
/// no choices, an {"error": ...} object).
std::string parse_completion(std::string_view body, model_reply& out);

/// Splits an SSE byte stream into the payloads of its `data:` events.
/// Comment lines (": ping"), `event:`/`id:`/`retry:` fields and empty events
/// produce nothing, so keep-alives never look like progress.
class sse_splitter {
public:
  /// Appends `bytes`; calls `on_data` once per complete event with data.
  void feed(std::string_view bytes,
            const std::function<void(std::string_view)>& on_data);

  /// Bytes held for an event that has not ended yet.
  size_t buffered() const { return buf_.size(); }

private:
  std::string buf_;
};

/// Rebuilds one streamed chat completion from its chunk payloads.
class stream_accumulator : public stream_decoder {
public:
  using delta = stream_piece;

  /// Applies one `data:` payload ("[DONE]" or a chunk object) and returns
  /// the visible text / reasoning pieces it carried, in order.
  std::vector<delta> apply(std::string_view data) override;

  bool done() const { return done_; }
  /// True once [DONE] or a finish_reason arrived: the answer is complete.
  bool finished() const override { return done_ || !finish_reason_.empty(); }
  /// Non-empty once a chunk was not JSON or carried an error object.
  const std::string& error() const override { return error_; }
  /// True once any content or reasoning text arrived.
  bool emitted() const { return emitted_; }

  /// Moves the accumulated completion into `out` (tool calls by index).
  void finish(model_reply& out) override;

private:
  struct partial_call {
    std::string id;
    std::string name;
    std::string arguments;
  };
  std::string content_;
  std::string reasoning_;
  std::map<int64_t, partial_call> calls_;
  std::string finish_reason_;
  token_usage usage_;
  std::string error_;
  bool done_ = false;
  bool emitted_ = false;
};

/// A fresh tool-call id for calls that arrived without one.
std::string make_tool_call_id();

} // namespace nb
