#include "actors/channels/feishu/feishu_stream.hpp"

#include "actors/channels/feishu/feishu_sender.hpp"
#include "actors/channels/kit/http_call.hpp"

namespace nb::feishu {

namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;

/// How often a card is edited at most (the original's interval).
constexpr auto card_edit_interval = std::chrono::milliseconds(500);

std::string card_path(const std::string& card_id) {
  return "/open-apis/cardkit/v1/cards/" + chan::url_encode(card_id);
}

bool feishu_blank(const std::string& s) {
  return s.find_first_not_of(" \t\r\n") == std::string::npos;
}

} // namespace

json streaming_card() {
  return {{"schema", "2.0"},
          {"config",
           {{"wide_screen_mode", true},
            {"update_multi", true},
            {"streaming_mode", true}}},
          {"body",
           {{"elements", json::array({{{"tag", "markdown"},
                                       {"content", ""},
                                       {"element_id", stream_element_id}}})}}}};
}

std::string tool_hint_markdown(const std::string& hint) {
  std::string out;
  size_t at = 0;
  for (;;) {
    auto nl = hint.find('\n', at);
    auto line = hint.substr(at, nl == std::string::npos ? std::string::npos
                                                         : nl - at);
    if (!feishu_blank(line))
      out += (out.empty() ? "" : "\n") + std::string{"\U0001F527 "} + line;
    if (nl == std::string::npos)
      return out;
    at = nl + 1;
  }
}

card_streams::card_streams(open_api& api, std::shared_ptr<spdlog::logger> log)
  : api_(api), lg_(std::move(log)) {
}

std::string card_streams::update(const live& s, int64_t sequence) {
  auto r = api_.call("PUT",
                     card_path(s.card_id) + "/elements/" + stream_element_id
                       + "/content",
                     json{{"content", s.text}, {"sequence", sequence}});
  return r.ok() ? "" : r.describe();
}

std::string card_streams::set_streaming(const live& s, bool on,
                                        int64_t sequence) {
  json settings{{"config", {{"streaming_mode", on}}}};
  // The uuid makes a repeated call of the same operation idempotent.
  auto r = api_.call("PATCH", card_path(s.card_id) + "/settings",
                     json{{"settings", settings.dump()},
                          {"sequence", sequence},
                          {"uuid", s.card_id + "-" + std::to_string(sequence)}});
  return r.ok() ? "" : r.describe();
}

bool card_streams::show(live& s) {
  auto err = update(s, ++s.sequence);
  if (err.empty())
    return true;
  lg_->warn("streaming card {} update refused ({}); reopening streaming",
            s.card_id, err);
  if (auto e2 = set_streaming(s, true, ++s.sequence); !e2.empty()) {
    lg_->warn("streaming card {} could not be reopened: {}", s.card_id, e2);
    return false;
  }
  err = update(s, ++s.sequence);
  if (!err.empty())
    lg_->warn("streaming card {} update refused again: {}", s.card_id, err);
  return err.empty();
}

bool card_streams::open_card(live& s, const message_send& send) {
  auto r = api_.call("POST", "/open-apis/cardkit/v1/cards",
                     json{{"type", "card_json"},
                          {"data", streaming_card().dump()}});
  auto id = r.ok() ? r.body.value("data", json::object()).value("card_id", "")
                   : std::string{};
  if (id.empty()) {
    lg_->warn("streaming card not created: {}",
              r.ok() ? "no card_id in the answer" : r.describe());
    return false;
  }
  json content{{"type", "card"}, {"data", {{"card_id", id}}}};
  if (auto err = send("interactive", content.dump()); !err.empty()) {
    lg_->warn("streaming card {} created but not sent: {}", id, err);
    return false;
  }
  s.card_id = id;
  s.sequence = 0;
  if (!show(s)) {
    set_streaming(s, false, ++s.sequence);
    s.card_id.clear();
    return false;
  }
  s.last_edit = steady::now();
  return true;
}

bool card_streams::resume(live& s) {
  if (auto err = set_streaming(s, true, ++s.sequence); !err.empty()) {
    lg_->warn("streaming card {} could not be reopened: {}", s.card_id, err);
    return false;
  }
  s.closed = false;
  if (!s.text.empty() && s.text.back() != '\n')
    s.text += "\n\n";
  return true;
}

void card_streams::delta(const std::string& key, const std::string& piece,
                         const message_send& send) {
  auto& s = streams_[key];
  if (s.closed) {
    if (feishu_blank(piece))
      return;
    if (!resume(s))
      s = live{}; // what follows gets a card of its own
  }
  s.text += piece;
  if (feishu_blank(s.text))
    return;
  if (s.card_id.empty()) {
    // One attempt per stream: a card Feishu would not make is not asked
    // for again on every delta.
    if (!s.card_tried) {
      s.card_tried = true;
      open_card(s, send);
    }
    return;
  }
  if (steady::now() - s.last_edit < card_edit_interval)
    return;
  if (show(s)) {
    s.last_edit = steady::now();
    return;
  }
  set_streaming(s, false, ++s.sequence);
  s.card_id.clear();
}

std::string card_streams::end(const std::string& key, const std::string& piece,
                              const message_send& send) {
  auto it = streams_.find(key);
  if (it == streams_.end()) {
    if (feishu_blank(piece))
      return "";
    it = streams_.emplace(key, live{}).first;
  }
  auto& s = it->second;
  if (s.closed) { // the turn's card, closed at its last segment's end
    if (feishu_blank(piece))
      return "";
    if (!resume(s))
      s = live{};
  }
  if (!s.ending)
    s.text += piece;
  s.ending = true;
  if (!s.card_id.empty()) {
    if (show(s)) {
      if (!set_streaming(s, false, ++s.sequence).empty())
        set_streaming(s, false, ++s.sequence);
      // Kept for the turn's tool hints and next segment; the chat's older
      // turns are not taken up again.
      s.closed = true;
      s.ending = false;
      auto chat = key.substr(0, key.find('|') + 1);
      for (auto o = streams_.begin(); o != streams_.end();)
        o = o != it && o->second.closed && o->first.rfind(chat, 0) == 0
              ? streams_.erase(o)
              : std::next(o);
      return "";
    }
    set_streaming(s, false, ++s.sequence);
    s.card_id.clear();
    lg_->warn("streaming card final update failed; sending the answer as a "
              "message");
  }
  if (!feishu_blank(s.text)) {
    auto [type, content] = render(s.text);
    if (auto err = send(type, content); !err.empty())
      return err;
  }
  streams_.erase(it);
  return "";
}

bool card_streams::hint(const std::string& key, const std::string& hint_text) {
  auto it = streams_.find(key);
  if (it == streams_.end() || it->second.card_id.empty() || it->second.ending)
    return false;
  auto& s = it->second;
  bool was_closed = s.closed;
  if (was_closed && !resume(s))
    return false;
  auto before = s.text;
  if (!s.text.empty() && s.text.back() != '\n')
    s.text += "\n\n";
  s.text += tool_hint_markdown(hint_text) + "\n\n";
  if (!show(s)) {
    set_streaming(s, false, ++s.sequence);
    if (was_closed) {
      streams_.erase(it); // its card shows what it had; more gets a new one
    } else {
      s.text = std::move(before); // goes as a message at the segment's end
      s.card_id.clear();
    }
    return false;
  }
  s.last_edit = steady::now();
  if (was_closed) {
    set_streaming(s, false, ++s.sequence);
    s.closed = true;
  }
  return true;
}

void card_streams::forget(const std::string& key) {
  if (auto it = streams_.find(key); it != streams_.end() && it->second.closed)
    streams_.erase(it);
}

} // namespace nb::feishu
