// The Mochat watch loop's handling of what arrives (socket events, acks to
// our emits, polled payloads): messages handed on before they are
// acknowledged and before a session's cursor moves; the "*" session and
// panel lists refreshed and the new ones subscribed.
#include "actors/channels/mochat/mochat_event.hpp"
#include "actors/channels/kit/hand_over.hpp"
#include "actors/channels/mochat/mochat_watch_loop.hpp"

namespace nb::mochat::watch_detail {

void watch_loop::subscribe_sessions(const std::vector<std::string>& ids) {
  if (ids.empty())
    return;
  auto id = next_id_++;
  pending_[id] = "com.claw.im.subscribeSessions";
  client_.emit(pending_[id],
               json::array({{{"sessionIds", ids},
                             {"cursors", targets_.cursors()},
                             {"limit", cfg_.watch_limit}}}),
               id);
}

void watch_loop::subscribe_panels(const std::vector<std::string>& ids) {
  if (ids.empty() && !cfg_.all_panels)
    return;
  auto id = next_id_++;
  pending_[id] = "com.claw.im.subscribePanels";
  client_.emit(pending_[id], json::array({{{"panelIds", ids}}}), id);
}

bool watch_loop::handle(const sio::sio_packet& p) {
  const auto& arg = sio::first_arg(p);
  if (p.type == sio::sio_type::ack)
    return answered(*p.id, arg);
  if (p.type != sio::sio_type::event)
    return true;
  auto name = sio::event_name(p);
  bool deferred = false;
  bool ok = true;
  if (name == "claw.session.events")
    ok = watch(arg, target_kind::session, p.id, deferred);
  else if (name == "claw.panel.events")
    ok = watch(arg, target_kind::panel, p.id, deferred);
  else if (name == "notify:chat.inbox.append")
    ok = inbox_append(arg, p.id, deferred);
  else if (name.rfind("notify:chat.message.", 0) == 0)
    ok = notify_message(arg, p.id, deferred);
  else
    lg_->debug("event {} not used", name);
  if (ok && p.id && !deferred)
    client_.ack(*p.id);
  return ok;
}

bool watch_loop::answered(int64_t id, const json& arg) {
  auto it = pending_.find(id);
  if (it == pending_.end())
    return true;
  auto what = it->second;
  pending_.erase(it);
  if (arg.is_object() && arg.contains("result") && arg["result"] != true) {
    auto msg = arg.value("message", json("unknown error"));
    // Without its subscriptions the socket carries nothing: connect
    // again (after the back-off), the reason shown in channels status.
    last_error_ = what + " failed: "
                  + (msg.is_string() ? msg.get<std::string>() : msg.dump());
    lg_->error("{}", last_error_);
    return false;
  }
  if (what != "com.claw.im.subscribeSessions")
    return true;
  auto data = arg.is_object() && arg.contains("data") ? arg["data"] : arg;
  std::vector<json> items;
  if (data.is_array())
    items.assign(data.begin(), data.end());
  else if (data.is_object() && data.value("sessions", json{}).is_array())
    items.assign(data["sessions"].begin(), data["sessions"].end());
  else if (data.is_object() && data.contains("sessionId"))
    items.push_back(data);
  for (const auto& item : items) {
    bool deferred = false;
    if (item.is_object() && !watch(item, target_kind::session, {}, deferred))
      return false;
  }
  return true;
}

bool watch_loop::watch(const json& payload, target_kind kind,
                       std::optional<int64_t> ack, bool& deferred) {
  std::string why;
  auto b = read_watch(payload, why);
  if (!b) {
    lg_->warn("malformed watch payload skipped ({})", why);
    return true;
  }
  auto& target = b->target_id;
  int64_t cursor = -1;
  if (kind == target_kind::session) {
    cursor =
      std::max({targets_.cursor(target), b->cursor.value_or(0), b->max_seq});
  }
  bool skip_history =
    kind == target_kind::session && b->has_events && targets_.take_cold(target);
  if (b->has_events && !skip_history) {
    ready_batch out;
    for (const auto& ev : b->events) {
      auto m = read_message_add(cfg_, target, kind, ev, why);
      if (!m) {
        if (why.rfind("malformed", 0) == 0)
          lg_->warn("{} in {}: skipped", why, target);
        continue;
      }
      deferred =
        sorter_.take(target, kind, std::move(*m), ack, steady::now(), out)
        || deferred;
    }
    if (!deliver(out))
      return false;
  }
  if (kind == target_kind::session)
    if (auto err = targets_.move_cursor(target, cursor); !err.empty())
      lg_->warn("cursor not saved: {}", err);
  return true;
}

bool watch_loop::notify_message(const json& payload, std::optional<int64_t> ack,
                                bool& deferred) {
  auto ev = read_notify_message(payload);
  if (!ev
      || (!targets_.panels().empty() && !targets_.panels().count(ev->first)))
    return true;
  return one_message(ev->first, target_kind::panel, ev->second, ack, deferred);
}

bool watch_loop::inbox_append(const json& payload, std::optional<int64_t> ack,
                              bool& deferred) {
  auto ev = read_inbox_append(payload);
  if (!ev)
    return true;
  auto session = targets_.session_of(ev->first);
  if (session.empty()) {
    refresh_sessions(true);
    session = targets_.session_of(ev->first);
  }
  if (session.empty())
    return true;
  return one_message(session, target_kind::session, ev->second, ack, deferred);
}

bool watch_loop::one_message(const std::string& target, target_kind kind,
                             const json& event, std::optional<int64_t> ack,
                             bool& deferred) {
  std::string why;
  auto m = read_message_add(cfg_, target, kind, event, why);
  if (!m) {
    if (why.rfind("malformed", 0) == 0)
      lg_->warn("{} in {}: skipped", why, target);
    return true;
  }
  ready_batch out;
  deferred = sorter_.take(target, kind, std::move(*m), ack, steady::now(), out);
  return deliver(out);
}

bool watch_loop::deliver(ready_batch& out) {
  if (!out.msgs.empty()) {
    auto n = out.msgs.size();
    auto done = chan::hand_over(front_, std::move(out.msgs));
    if (done.recorded < n) {
      last_error_ = "inbox: " + done.error;
      lg_->warn("messages not acknowledged to Mochat (they come again): {}",
                done.error);
      return false;
    }
  }
  sorter_.remember(out.keys);
  // Polled messages carry no acks; a socket attempt owns the client.
  if (!attempt_.pending())
    for (auto id : out.acks)
      client_.ack(id);
  return true;
}

void watch_loop::refresh_targets(bool subscribe_new) {
  if (cfg_.all_sessions)
    refresh_sessions(subscribe_new);
  if (cfg_.all_panels && !fatal_)
    refresh_panels(subscribe_new);
}

void watch_loop::note_refresh(const std::string& err, bool bad_token,
                              const char* what) {
  if (err.empty())
    return;
  if (bad_token) {
    fatal_ = true;
    last_error_ = token_error(err);
  }
  lg_->warn("{} failed: {}", what, err);
}

void watch_loop::refresh_sessions(bool subscribe_new) {
  std::vector<std::string> fresh;
  bool bad = false;
  auto err = targets_.refresh_sessions(api_, fresh, bad);
  note_refresh(err, bad, "listing sessions");
  if (subscribe_new && !fresh.empty())
    subscribe_sessions(fresh);
}

void watch_loop::refresh_panels(bool subscribe_new) {
  std::vector<std::string> fresh;
  bool bad = false;
  auto err = targets_.refresh_panels(api_, fresh, bad);
  note_refresh(err, bad, "reading the workspace's panels");
  if (subscribe_new && !fresh.empty())
    subscribe_panels(fresh);
}

} // namespace nb::mochat::watch_detail
