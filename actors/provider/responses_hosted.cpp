// OpenAI's hosted web search in a streamed Response: the web_search_call
// item it opens becomes a progress piece for the user, as the original
// maps it onto its tool progress (openai_responses/parsing.py). Only the
// start is shown: the original's end event feeds its WebUI's tool cards,
// not a chat line.
#include <optional>

#include "actors/common/strings.hpp"
#include "actors/common/utf8.hpp"
#include "actors/provider/responses_wire.hpp"
#include "actors/provider/wire_json.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

/// At most `max` code points of `s`, as Python's slicing counts them.
std::string hosted_code_point_head(const std::string& s, size_t max) {
  size_t at = 0;
  for (size_t n = 0; n < max && at < s.size(); ++n) {
    auto len = utf8_sequence_length(s, at);
    at += len == 0 ? 1 : len;
  }
  return s.substr(0, at);
}

/// What the search looks for: up to four queries joined by " · ", else
/// the action's query, pattern or url; "" when it says none yet.
std::string hosted_search_query(const json& action) {
  std::string joined;
  if (action.contains("queries") && action["queries"].is_array()) {
    int taken = 0;
    for (auto& q : action["queries"]) {
      if (!q.is_string())
        continue;
      auto text = trim_space(q.get<std::string>());
      if (text.empty())
        continue;
      joined += (joined.empty() ? "" : " \u00b7 ") + text;
      if (++taken == 4)
        break;
    }
  }
  if (!joined.empty())
    return joined;
  for (const char* key : {"query", "pattern", "url"}) {
    auto text = trim_space(wire::string_field(action, key));
    if (!text.empty())
      return text;
  }
  return {};
}

} // namespace

std::optional<stream_piece> hosted_search_started(const json& ev) {
  if (wire::string_field(ev, "type") != "response.output_item.added"
      || !ev.contains("item") || !ev["item"].is_object())
    return std::nullopt;
  auto& item = ev["item"];
  if (wire::string_field(item, "type") != "web_search_call")
    return std::nullopt;
  auto id = wire::string_field(item, "id");
  if (id.empty())
    id = wire::string_field(item, "call_id");
  if (id.empty())
    id = wire::string_field(ev, "item_id");
  if (id.empty())
    return std::nullopt;
  auto action = item.contains("action") && item["action"].is_object()
                  ? item["action"]
                  : json::object();
  auto query = hosted_search_query(action);
  json args = json::object();
  if (!query.empty())
    args["query"] = hosted_code_point_head(query, 1000);
  return stream_piece{args.dump(-1, ' ', false, json::error_handler_t::replace),
                      false, "web_search"};
}

} // namespace nb
