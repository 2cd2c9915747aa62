// The turn's outward shapes: its final reply (with the usage the WebUI and
// the API show), the plain answer to a command that arrived meanwhile, and
// the user's message as the transcript stores it.
#include "actors/session/session.hpp"
#include "actors/common/iso_time.hpp"
#include "actors/session/goal_state.hpp"
#include "actors/session/session_steps.hpp"

#include <algorithm>

#include "actors/session/transcript.hpp"
#include "actors/tools/cli_app_mentions.hpp"

namespace nb {

using json = nlohmann::json;

outbound_msg turn_final_reply(session_pointer self, std::string text,
                              bool is_error) {
  auto& in = self->state.turn->message;
  outbound_msg out;
  out.channel = in.channel;
  out.chat_id = in.chat_id;
  out.session_key = self->state.key;
  out.kind = outbound_kind::final_reply;
  out.content = std::move(text);
  out.is_error = is_error;
  out.stream_id = self->state.key + ":" + std::to_string(self->state.turn_number);
  json meta{{"streamed", self->state.turn->streamed}};
  if (self->state.turn->stop_reason != turn_stop::none)
    meta["stop_reason"] = to_string(self->state.turn->stop_reason);
  // The turn's usage as the original's turn_end carries it (requests
  // summed; context_tokens = the last request's prompt) and the window it
  // is measured against: the WebUI shows the chat's context use.
  const auto& last = self->state.last_usage;
  const auto& sum = self->state.last_turn_sum.prompt_tokens > 0
                      ? self->state.last_turn_sum : last;
  if (last.prompt_tokens > 0) {
    // The API channel answers with it as the completion's usage too.
    meta["usage"] = {{"prompt_tokens", sum.prompt_tokens},
                     {"completion_tokens", sum.completion_tokens},
                     {"total_tokens",
                      std::max(sum.total_tokens,
                               sum.prompt_tokens + sum.completion_tokens)},
                     {"cached_tokens", sum.cached_tokens},
                     {"context_tokens", last.prompt_tokens}};
    meta["context_window_tokens"] = self->state.runtime.context_window_tokens;
  }
  // The WebUI's goal strip, refreshed at every turn's end (turn_end).
  if (in.channel == "websocket")
    meta["goal_state"] = goal::ws_blob(self->state.file_meta);
  out.metadata_json = meta.dump();
  return out;
}

outbound_msg command_answer_to(session_pointer self, const inbound_msg& in,
                               std::string text) {
  outbound_msg out;
  out.channel = in.channel;
  out.chat_id = in.chat_id;
  out.session_key = self->state.key;
  out.kind = outbound_kind::final_reply;
  out.content = std::move(text);
  out.metadata_json = R"({"render_as":"text"})";
  return out;
}

json user_message(const inbound_msg& in) {
  json m{{"role", "user"}, {"content", in.content}, {"timestamp", iso_now()}};
  if (!in.media.empty())
    m["media"] = in.media;
  // The inbox entry it came from: a re-delivery after a crash finds it here
  // and is not stored twice.
  if (!in.inbox_id.empty())
    m["_inbox"] = in.inbox_id;
  // A goal's continuation prompt: kept so the transcript alternates, marked
  // as the host's, not the user's words.
  if (is_goal_continuation(in))
    m["_goal_continuation"] = true;
  // The WebUI's attached CLI apps, kept on the line as the original keeps
  // them (its replay names them again).
  if (in.metadata_json.find(cli_apps_meta_key) != std::string::npos) {
    auto meta = json::parse(in.metadata_json, nullptr, false);
    if (meta.is_object() && meta.contains(cli_apps_meta_key))
      if (auto apps = normalize_cli_app_mentions(meta[cli_apps_meta_key]);
          !apps.empty())
        m[cli_apps_meta_key] = std::move(apps);
  }
  return m;
}

} // namespace nb
