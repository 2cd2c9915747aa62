// The Responses conversation state (see the header).
#include "actors/provider/responses_state.hpp"

#include <algorithm>
#include <iterator>

#include "actors/common/strings.hpp"
#include "actors/provider/responses_wire.hpp"
#include "actors/provider/wire_json.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

/// A state record's items, when it is one this provider and model may
/// resume (responses_state_matches).
json* responses_matching_items(json& state,
                                     const std::string& provider,
                                     const std::string& model) {
  if (!state.is_object() || wire::string_field(state, "kind") != responses_state_kind
      || wire::string_field(state, "provider") != provider
      || wire::string_field(state, "model") != model)
    return nullptr;
  auto version = state.find("version");
  if (version == state.end() || !version->is_number_integer()
      || version->get<int64_t>() != responses_state_version)
    return nullptr;
  auto payload = state.find("payload");
  if (payload == state.end() || !payload->is_object())
    return nullptr;
  auto items = payload->find("items");
  if (items == payload->end() || !items->is_array()
      || !std::all_of(items->begin(), items->end(),
                      [](const json& i) { return i.is_object(); }))
    return nullptr;
  return &*items;
}

bool responses_compaction_item(const json& item) {
  auto type = wire::string_field(item, "type");
  return type == "compaction" || type == "compaction_summary"
         || type == "context_compaction";
}

} // namespace

std::string responses_state_provider(const provider_choice& choice) {
  std::string base =
    choice.api_base.empty() ? "https://api.openai.com/v1" : choice.api_base;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  return "openai_compat:" + choice.name + ":" + base;
}

bool responses_resume_input(const conversation_state& conversation,
                            const std::string& provider,
                            const std::string& model, json& input,
                            bool keep_reasoning) {
  if (!conversation.record)
    return false;
  auto state = json::parse(*conversation.record, nullptr, false);
  auto* items = responses_matching_items(state, provider, model);
  if (!items)
    return false;
  json pending = json::array();
  if (auto p = state.find("pending_messages"); p != state.end() && p->is_array())
    pending = std::move(*p);
  for (auto& text : conversation.pending) {
    auto m = json::parse(text, nullptr, false);
    if (m.is_object())
      pending.push_back(std::move(m));
  }
  std::string instructions, error;
  json delta;
  if (!to_responses_input(pending, instructions, delta, error, keep_reasoning))
    return false;
  json out = std::move(*items); // parsed for this request: moved, not copied
  for (auto& item : delta)
    out.push_back(std::move(item));
  input = std::move(out);
  return true;
}

std::shared_ptr<const std::string>
responses_next_state(const std::string& provider, const std::string& model,
                     json input, const json& output, const token_usage& usage) {
  json items = json::array();
  auto latest = std::find_if(output.rbegin(), output.rend(),
                             responses_compaction_item);
  if (latest != output.rend()) {
    // Server compaction: the compaction item stands for all before it.
    for (auto it = std::prev(latest.base()); it != output.end(); ++it)
      items.push_back(*it);
  } else {
    items = input.is_array() ? std::move(input) : json::array();
    for (auto& item : output)
      if (item.is_object())
        items.push_back(item);
  }
  json payload{{"items", std::move(items)}};
  auto context = usage.total_tokens > 0
                   ? usage.total_tokens
                   : usage.prompt_tokens + usage.completion_tokens;
  if (context > 0)
    payload["context_tokens"] = context;
  json state{{"kind", responses_state_kind},
             {"provider", provider},
             {"model", model},
             {"version", responses_state_version},
             {"payload", std::move(payload)},
             {"pending_messages", json::array()}};
  return std::make_shared<const std::string>(
    state.dump(-1, ' ', false, json::error_handler_t::replace));
}

void settle_responses_state(model_reply& reply, const std::string& provider,
                            const std::string& body) {
  reply.stateful = true;
  auto output_text = std::move(reply.conversation.record);
  reply.conversation = {};
  const auto& fr = reply.finish_reason;
  if (!output_text || (fr != "stop" && fr != "tool_calls"
                       && fr != "function_call"))
    return;
  auto output = json::parse(*output_text, nullptr, false);
  auto sent = json::parse(body, nullptr, false);
  if (!output.is_array() || !sent.is_object() || !sent.contains("input"))
    return;
  reply.conversation.record =
    responses_next_state(provider, wire::string_field(sent, "model"),
                         std::move(sent["input"]), output, reply.usage);
}

void settle_failed_responses_state(model_reply& reply, bool transient) {
  reply.conversation = {};
  reply.stateful = !transient;
}

int64_t responses_compact_threshold(int64_t window, int64_t max_output) {
  if (window <= 0)
    return 0;
  auto ninety = std::max<int64_t>(1, window * 9 / 10);
  auto headroom = std::max<int64_t>(1, window - std::max<int64_t>(1, max_output));
  return std::min(ninety, headroom);
}

bool responses_compaction_refused(int status, const std::string& detail) {
  if (status != 400 && status != 404 && status != 422)
    return false;
  auto text = ascii_lower(detail);
  for (auto marker : {"context_management", "compact_threshold",
                      "compaction_trigger"})
    if (text.find(marker) != std::string::npos)
      return true;
  return false;
}

} // namespace nb
