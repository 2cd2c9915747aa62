// Outbound delivery: one message in flight per chat (order kept), stream
// deltas coalesced while waiting, long texts split, failed sends retried
// after 1, 2, 4 s. A message is retried only after its adapter answered an
// error (or did not answer in time), and dropped from the queue only once
// it was accepted or the last attempt failed: never lost silently, never
// sent twice by the manager.
#include <nlohmann/json.hpp>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/manager/manager.hpp"
#include "actors/channels/manager/split.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "messages/goal.hpp"

namespace nb {

namespace {

/// Longer than any adapter's own HTTP timeout, so a slow success is not
/// mistaken for a failure (which would send it again).
constexpr auto send_timeout = std::chrono::seconds(120);

std::string queue_key(const outbound_msg& msg) {
  return msg.channel + '\n' + msg.chat_id;
}

using chan::is_tool_hint; // progress lines are hints unless they say not

/// A final reply whose text already went out as deltas is only the turn's
/// end marker: it is not split.
bool was_streamed(const outbound_msg& msg) {
  auto meta = nlohmann::json::parse(msg.metadata_json, nullptr, false);
  return meta.is_object() && meta.value("streamed", false) == true;
}

/// Whether `msg` goes to a chat channel at all.
bool wanted(const managed_channel& ch, const outbound_msg& msg) {
  switch (msg.kind) {
    case outbound_kind::retry_wait:
      return false; // the provider's back-off is not chat material
    case outbound_kind::progress:
      if (is_goal_event(msg)) // the WebUI's goal strip and run state
        return ch.opts.kind == "websocket";
      return ch.opts.send_progress
             && (ch.opts.send_tool_hints || !is_tool_hint(msg));
    default:
      return true;
  }
}

void pump(channel_manager_pointer self, const std::string& key) {
  auto& q = self->state.queues[key];
  if (q.in_flight)
    return;
  if (q.items.empty()) {
    self->state.queues.erase(key);
    return;
  }
  q.in_flight = true;
  send_front(self, key, 1);
}

void finish_front(channel_manager_pointer self, const std::string& key) {
  auto& q = self->state.queues[key];
  q.items.pop_front();
  q.in_flight = false;
  pump(self, key);
}

} // namespace

void enqueue_outbound(channel_manager_pointer self, outbound_msg msg) {
  auto i = self->state.channels.find(msg.channel);
  if (i == self->state.channels.end()) {
    log::get("channels")->warn("no channel '{}' is configured; dropping a {} "
                               "message for chat {}",
                               msg.channel, to_string(msg.kind), msg.chat_id);
    return;
  }
  auto& ch = i->second;
  if (!wanted(ch, msg))
    return;
  auto& q = self->state.queues[queue_key(msg)];
  if (msg.kind == outbound_kind::delta) {
    // Coalesce with a waiting delta of the same stream: fewer platform
    // calls (and edits) when the adapter is slower than the model.
    size_t waiting = q.items.size() - (q.in_flight ? 1 : 0);
    if (waiting > 0 && q.items.back().kind == outbound_kind::delta
        && q.items.back().stream_id == msg.stream_id) {
      q.items.back().content += msg.content;
      return;
    }
    q.items.push_back(std::move(msg));
  } else if ((msg.kind == outbound_kind::final_reply && !was_streamed(msg))
             || (msg.kind == outbound_kind::progress && !is_goal_event(msg))) {
    auto pieces = split_message(msg.content, ch.opts.max_chars);
    // Attachments (the message tool's "media") go with the last piece
    // only, so a long caption does not send them once per piece.
    std::string head_meta = msg.metadata_json;
    if (pieces.size() > 1
        && msg.metadata_json.find("\"media\"") != std::string::npos) {
      auto meta = nlohmann::json::parse(msg.metadata_json, nullptr, false);
      if (meta.is_object()) {
        meta.erase("media");
        head_meta = meta.dump();
      }
    }
    for (size_t i = 0; i < pieces.size(); ++i) {
      auto part = msg;
      part.content = std::move(pieces[i]);
      if (i + 1 < pieces.size())
        part.metadata_json = head_meta;
      q.items.push_back(std::move(part));
    }
  } else {
    q.items.push_back(std::move(msg));
  }
  pump(self, queue_key(q.items.back()));
}

void send_front(channel_manager_pointer self, const std::string& key,
                int32_t attempt) {
  auto qi = self->state.queues.find(key);
  if (qi == self->state.queues.end() || qi->second.items.empty())
    return;
  const auto& msg = qi->second.items.front();
  auto& ch = self->state.channels[msg.channel];
  int32_t max_attempts = std::max(1, self->state.cfg.channels_common
                                       .send_max_retries);
  auto on_error = [self, key, attempt, max_attempts](const std::string& why) {
    auto& q = self->state.queues[key];
    const auto& m = q.items.front();
    auto lg = log::get("channels");
    if (attempt >= max_attempts) {
      lg->error("channel {}: giving up on a {} message for chat {} after {} "
                "attempt(s): {}",
                m.channel, to_string(m.kind), m.chat_id, attempt, why);
      ++self->state.channels[m.channel].gave_up;
      finish_front(self, key);
      return;
    }
    auto delay = std::chrono::seconds(int64_t{1} << (attempt - 1));
    lg->warn("channel {}: sending to chat {} failed ({}); attempt {} of {} in "
             "{} s",
             m.channel, m.chat_id, why, attempt + 1, max_attempts,
             delay.count());
    self->delayed_send(self, delay, retry_send_atom::value, key, attempt + 1);
  };
  if (!ch.adapter) {
    on_error("the channel is not running");
    return;
  }
  timed_request(self, ch.adapter, send_timeout, msg)
    .then([self, key](caf::ok_atom) { finish_front(self, key); },
          [self, on_error](caf::error& err) {
            on_error(self->system().render(err));
          });
}

} // namespace nb
