#include "actors/channels/mochat/mochat_sorter.hpp"

#include <algorithm>

namespace nb::mochat {

namespace {

using nlohmann::json;

/// The original remembers 2 000 message ids per target; one window for
/// all targets holds as many for the busiest ones.
constexpr size_t remembered_ids = 20000;

void add_ack(std::vector<int64_t>& acks, std::optional<int64_t> id) {
  if (id && std::find(acks.begin(), acks.end(), *id) == acks.end())
    acks.push_back(*id);
}

} // namespace

std::string sorter::key_of(target_kind kind, const std::string& target,
                           const std::string& id) {
  return (kind == target_kind::panel ? "panel:" : "session:") + target + ":"
         + id;
}

bool sorter::take(const std::string& target, target_kind kind, message_add m,
                  std::optional<int64_t> ack_id, clock::time_point now,
                  ready_batch& out) {
  auto key =
    m.message_id.empty() ? std::string{} : key_of(kind, target, m.message_id);
  if (!key.empty() && seen(key))
    return false;
  auto bkey = key_of(kind, target, "");
  auto it = buffers_.find(bkey);
  if (!key.empty() && it != buffers_.end())
    for (const auto& e : it->second.entries)
      if (e.message_id == m.message_id) { // sent again while it waits
        add_ack(it->second.acks, ack_id);
        return true;
      }
  bool delay =
    kind == target_kind::panel && cfg_.reply_delay_mode == "non-mention";
  if (m.needs_mention && !m.mentioned && !delay)
    return false;
  if (!delay) {
    out.msgs.push_back(std::move(m.msg));
    if (!key.empty())
      out.keys.push_back(key);
    return false;
  }
  if (it == buffers_.end()) {
    it = buffers_.emplace(bkey, buffer{}).first;
    it->second.target = target;
    it->second.kind = kind;
  }
  auto& b = it->second;
  bool mentioned = m.mentioned;
  b.entries.push_back(std::move(m));
  add_ack(b.acks, ack_id);
  if (mentioned) {
    // The mention takes what waited with it; the event is acked with them.
    flush(b, true, out);
    buffers_.erase(it);
    return true;
  }
  b.deadline = now + std::chrono::milliseconds(cfg_.reply_delay_ms);
  return true;
}

void sorter::flush(buffer& b, bool mentioned, ready_batch& out) {
  if (b.entries.empty())
    return;
  auto msg = b.entries.back().msg;
  msg.content = joined_body(b.entries);
  auto meta = json::parse(msg.metadata_json, nullptr, false);
  if (meta.is_object()) {
    meta["_mentioned"] = mentioned;
    meta["buffered_count"] = b.entries.size();
    msg.metadata_json =
      meta.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  out.msgs.push_back(std::move(msg));
  for (const auto& e : b.entries)
    if (!e.message_id.empty())
      out.keys.push_back(key_of(b.kind, b.target, e.message_id));
  out.acks.insert(out.acks.end(), b.acks.begin(), b.acks.end());
  b.entries.clear();
  b.acks.clear();
}

void sorter::due(clock::time_point now, ready_batch& out) {
  for (auto it = buffers_.begin(); it != buffers_.end();) {
    if (it->second.deadline <= now) {
      flush(it->second, false, out);
      it = buffers_.erase(it);
    } else {
      ++it;
    }
  }
}

std::optional<sorter::clock::time_point> sorter::next_due() const {
  std::optional<clock::time_point> out;
  for (const auto& [k, b] : buffers_)
    if (!out || b.deadline < *out)
      out = b.deadline;
  return out;
}

void sorter::remember(const std::vector<std::string>& keys) {
  for (const auto& k : keys) {
    if (!seen_.insert(k).second)
      continue;
    order_.push_back(k);
    if (order_.size() > remembered_ids) {
      seen_.erase(order_.front());
      order_.pop_front();
    }
  }
}

void sorter::forget_acks() {
  for (auto& [k, b] : buffers_)
    b.acks.clear();
}

size_t sorter::waiting() const {
  size_t n = 0;
  for (const auto& [k, b] : buffers_)
    n += b.entries.size();
  return n;
}

} // namespace nb::mochat
