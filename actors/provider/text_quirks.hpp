// Local-model quirks in answer text: tool calls written as
// <tool_call>{...}</tool_call> (vLLM without the hermes parser, many Ollama
// models) and <think>...</think> reasoning inline in the content. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "actors/provider/wire_format.hpp"
#include "messages/model.hpp"

namespace nb {

/// Cleans a finished reply: <think> blocks move to reasoning_content,
/// <tool_call> blocks with a JSON object ({"name": ..., "arguments": ...})
/// become tool calls when the reply has none of its own (finish_reason
/// "stop" then reads "tool_calls"), and both are removed from the visible
/// content. A block whose JSON does not parse stays visible: it is the
/// model's text, not a call we could run.
void apply_text_quirks(model_reply& reply);

/// The same on a stream: holds back text that may be the start of a tag,
/// turns <think> content into reasoning pieces and swallows <tool_call>
/// blocks, so no tag text ever reaches the user as a delta.
class quirk_filter {
public:
  /// Visible and reasoning pieces for `piece` (may hold some of it back).
  std::vector<stream_piece> feed(std::string_view piece);

  /// What is still held back once the stream ended (an unfinished tag is
  /// shown as text unless it was a tool call or thinking).
  std::vector<stream_piece> flush();

private:
  enum class mode { text, think, tool_call };
  void emit(std::vector<stream_piece>& out, std::string text, bool reasoning);
  std::string held_;
  mode mode_ = mode::text;
};

} // namespace nb
