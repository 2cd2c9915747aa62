#include "actors/channels/telegram/telegram_sender.hpp"

#include <chrono>
#include <map>

#include <caf/all.hpp>

#include "actors/channels/kit/markdown_html.hpp"
#include "actors/channels/kit/text_split.hpp"
#include "actors/channels/telegram/bot_api.hpp"
#include "actors/channels/telegram/telegram_update.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::telegram {

namespace {

using nlohmann::json;
using clock = std::chrono::steady_clock;

constexpr size_t piece_limit = 4000; // Telegram allows 4096 characters

/// One message that grows while the answer streams in.
struct live_stream {
  int64_t message_id = 0;
  std::string text;  ///< everything received so far
  std::string shown; ///< what the message shows now
  clock::time_point last_edit;
};

struct sender_state {
  sender_state() = default;
  static inline const char* name = "telegram_sender";
  telegram_config cfg;
  std::unique_ptr<bot_api> api;
  std::map<std::string, live_stream> streams; ///< by chat|stream_id
  std::map<std::string, live_stream> finished; ///< last ended, by chat
  std::map<std::string, int64_t> last_inbound; ///< message_id, by chat
};

using sender_pointer = chan::sender_actor::stateful_pointer<sender_state>;

caf::error fail(const std::string& method, const api_result& r) {
  return caf::make_error(caf::sec::runtime_error,
                         "telegram " + method + ": "
                           + (r.error_code ? std::to_string(r.error_code) + " "
                                           : std::string{})
                           + r.description);
}

json base_params(const outbound_msg& m) {
  json p{{"chat_id", m.chat_id}};
  if (auto topic = topic_of(m.session_key))
    p["message_thread_id"] = topic;
  return p;
}

bool html_refused(const api_result& r) {
  return r.error_code == 400
         && r.description.find("parse entities") != std::string::npos;
}

/// sendMessage (or editMessageText with `message_id`) of one piece as
/// HTML, falling back to plain text when Telegram refuses the markup.
api_result put_piece(sender_state& st, json params, const std::string& md,
                     int64_t message_id) {
  const char* method = message_id ? "editMessageText" : "sendMessage";
  if (message_id)
    params["message_id"] = message_id;
  params["text"] = chan::markdown_to_html(md);
  params["parse_mode"] = "HTML";
  auto r = st.api->call(method, params);
  if (html_refused(r)) {
    params.erase("parse_mode");
    params["text"] = md;
    r = st.api->call(method, params);
  }
  // Editing to the same text is harmless: the message already shows it.
  if (!r.ok && message_id
      && r.description.find("not modified") != std::string::npos)
    r.ok = true;
  return r;
}

caf::result<caf::ok_atom> send_text(sender_state& st, const outbound_msg& m) {
  auto params = base_params(m);
  auto last = st.last_inbound.find(m.chat_id);
  if (st.cfg.reply_to_message && last != st.last_inbound.end())
    params["reply_parameters"] = {{"message_id", last->second},
                                  {"allow_sending_without_reply", true}};
  for (auto& piece : chan::split_text(m.content, piece_limit)) {
    auto r = put_piece(st, params, piece, 0);
    if (!r.ok)
      return fail("sendMessage", r);
  }
  return caf::ok_atom::value;
}

/// Shows `s.text` in the stream's message (creating it on first use).
caf::error show(sender_state& st, const outbound_msg& m, live_stream& s,
                bool final) {
  if (s.text.size() > piece_limit) {
    // Full: finish this message and go on in a new one.
    auto pieces = chan::split_text(s.text, piece_limit);
    for (size_t i = 0; i + 1 < pieces.size(); ++i) {
      auto r = put_piece(st, base_params(m), pieces[i], s.message_id);
      if (!r.ok)
        return fail("editMessageText", r);
      s.message_id = 0;
    }
    s.text = pieces.back();
    s.shown.clear();
  }
  if (s.text == s.shown && !final)
    return {};
  if (final || s.message_id == 0) {
    auto r = put_piece(st, base_params(m), s.text, s.message_id);
    if (!r.ok)
      return fail(s.message_id ? "editMessageText" : "sendMessage", r);
    if (!s.message_id && r.result.is_object())
      s.message_id = r.result.value("message_id", int64_t{0});
  } else {
    auto params = base_params(m);
    params["message_id"] = s.message_id;
    params["text"] = s.text; // plain while it grows: half-written markup
    auto r = st.api->call("editMessageText", params);
    if (!r.ok && r.description.find("not modified") == std::string::npos)
      return fail("editMessageText", r);
  }
  s.shown = s.text;
  s.last_edit = clock::now();
  return {};
}

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              telegram_config cfg) {
  name_thread("tg.send"); // detached: this is its own thread
  self->state.cfg = cfg;
  self->state.api = std::make_unique<bot_api>(cfg.api_base, cfg.token);
  return {
    guard("channels", [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      auto meta = json::parse(m.metadata_json, nullptr, false);
      bool streamed = meta.is_object() && meta.value("streamed", false);
      switch (m.kind) {
        case outbound_kind::retry_wait:
          return caf::ok_atom::value;
        case outbound_kind::delta: {
          auto& s = st.streams[m.chat_id + "|" + m.stream_id];
          s.text += m.content;
          auto gap = std::chrono::duration<double>(clock::now() - s.last_edit);
          if (s.message_id && gap.count() < st.cfg.stream_edit_interval_s)
            return caf::ok_atom::value;
          if (auto err = show(st, m, s, false))
            return err;
          return caf::ok_atom::value;
        }
        case outbound_kind::stream_end: {
          auto it = st.streams.find(m.chat_id + "|" + m.stream_id);
          if (it == st.streams.end())
            return caf::ok_atom::value;
          if (!m.content.empty())
            it->second.text += m.content;
          if (auto err = show(st, m, it->second, true))
            return err;
          st.finished[m.chat_id] = std::move(it->second);
          st.streams.erase(it);
          return caf::ok_atom::value;
        }
        case outbound_kind::final_reply:
        case outbound_kind::progress:
          break;
      }
      if (m.kind == outbound_kind::final_reply && streamed) {
        // The user watched this answer stream in: settle that message.
        auto it = st.finished.find(m.chat_id);
        if (it != st.finished.end()) {
          auto s = std::move(it->second);
          st.finished.erase(it);
          if (s.shown != m.content && m.content.size() <= piece_limit) {
            s.text = m.content;
            if (auto err = show(st, m, s, true))
              return err;
          }
          return caf::ok_atom::value;
        }
      }
      if (m.content.empty())
        return caf::ok_atom::value;
      return send_text(st, m);
    }),
    [self](const inbound_msg& in) {
      auto meta = json::parse(in.metadata_json, nullptr, false);
      if (meta.is_object() && meta.contains("message_id")
          && meta["message_id"].is_number_integer())
        self->state.last_inbound[in.chat_id] = meta["message_id"].get<int64_t>();
    },
  };
}

} // namespace

chan::sender_actor spawn_sender(caf::actor_system& sys, telegram_config cfg) {
  return sys.spawn<caf::detached>(sender_impl, std::move(cfg));
}

} // namespace nb::telegram
