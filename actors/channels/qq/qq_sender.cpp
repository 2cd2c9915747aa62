#include "actors/channels/qq/qq_sender.hpp"

#include <functional>
#include <map>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/kit/media_out.hpp"
#include "actors/channels/qq/qq_api.hpp"
#include "actors/channels/qq/qq_group_book.hpp"
#include "actors/channels/qq/qq_media.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::qq {

namespace {

using nlohmann::json;

/// What the sender knows about one chat.
struct chat_facts {
  bool group = false;
  std::string msg_id;   ///< the newest message from it
  int64_t next_seq = 2; ///< for msg_id
};

struct sender_state {
  sender_state() = default;
  static inline const char* name = "qq_sender";
  std::unique_ptr<qq_config> cfg; ///< api_ refers to it: never moves
  std::unique_ptr<qq_api> api;
  std::unique_ptr<qq_link_fetcher> links;
  std::map<std::string, chat_facts> chats;
  std::unique_ptr<group_book> groups; ///< null: groups_file not set
};

using sender_pointer = chan::sender_actor::stateful_pointer<sender_state>;

/// The book of groups, read on first use: in a handler, so on the
/// sender's own thread, never on a scheduler thread. Null when not kept.
group_book* groups_of(sender_state& st) {
  if (!st.groups && !st.cfg->groups_file.empty()) {
    std::string err;
    st.groups = std::make_unique<group_book>(st.cfg->groups_file, err);
    if (!err.empty())
      log::get("channel." + st.cfg->name)->warn("{}", err);
  }
  return st.groups.get();
}

/// The facts about `chat_id`; a chat first met here is a group when the
/// book says so (a restart forgot the messages that told).
chat_facts& facts_of(sender_state& st, const std::string& chat_id) {
  auto [it, fresh] = st.chats.try_emplace(chat_id);
  if (auto* book = fresh ? groups_of(st) : nullptr)
    it->second.group = book->contains(chat_id);
  return it->second;
}

/// The attachments (files and links) after the words, as rich media: QQ
/// shows no link previews, so a link is fetched and uploaded as the
/// original does. The words went out already, so a
/// failure is logged (naming the file) and noted in the chat as the
/// original does, never answered as an error: the manager's retry would
/// send the words twice.
void send_files(sender_state& st, const std::string& chat_id,
                const std::vector<std::string>& refs,
                const std::function<int64_t()>& next_seq) {
  const auto& chat = facts_of(st, chat_id);
  for (const auto& ref : refs) {
    auto err = send_qq_attachment(*st.api, chat.group, chat_id, ref,
                                  *st.links, chat.msg_id, next_seq);
    if (err.empty())
      continue;
    auto lg = log::get("channel." + st.cfg->name);
    lg->warn("attachment {} for chat {} not sent: {}", ref, chat_id, err);
    qq_post notice{chat.group,
                   chat_id,
                   "[Attachment send failed: " + qq_attachment_name(ref) + "]",
                   chat.msg_id,
                   next_seq(),
                   ""};
    if (auto e2 = st.api->post(notice); !e2.empty())
      lg->warn("the notice about {} did not go out either: {}", ref, e2);
  }
}

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              qq_config cfg) {
  name_thread("qq.send"); // detached: this is its own thread
  auto& st = self->state;
  st.cfg = std::make_unique<qq_config>(std::move(cfg));
  st.api = std::make_unique<qq_api>(*st.cfg);
  st.links = std::make_unique<qq_link_fetcher>(st.cfg->ssrf_whitelist);
  return {
    guard("channels", [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
      if (m.kind != outbound_kind::final_reply
          && m.kind != outbound_kind::progress)
        return caf::ok_atom::value;
      const auto& text = m.content;
      auto refs = chan::outbound_media(m.metadata_json);
      auto& chat = facts_of(self->state, m.chat_id);
      auto next_seq = [&chat] {
        return chat.msg_id.empty() ? int64_t{1} : chat.next_seq++;
      };
      if (!text.empty()) {
        qq_post p{chat.group, m.chat_id, text, chat.msg_id, next_seq(), ""};
        if (auto err = self->state.api->post(p); !err.empty())
          return caf::make_error(caf::sec::runtime_error,
                                 "qq send to " + m.chat_id + ": " + err);
      }
      send_files(self->state, m.chat_id, refs, next_seq);
      return caf::ok_atom::value;
    }),
    [self](const inbound_msg& in) {
      auto meta = json::parse(in.metadata_json, nullptr, false);
      if (!meta.is_object())
        return;
      auto& st = self->state;
      auto& chat = st.chats[in.chat_id];
      chat.group = meta.value("chat_type", json{}) == "group";
      auto* book = chat.group ? groups_of(st) : nullptr;
      if (book != nullptr)
        if (auto err = book->add(in.chat_id); !err.empty())
          log::get("channel." + st.cfg->name)
            ->warn("cannot keep group {} for after a restart: {}", in.chat_id,
                   err);
      auto id = meta.value("message_id", json{});
      if (id.is_string() && id.get<std::string>() != chat.msg_id) {
        chat.msg_id = id.get<std::string>();
        chat.next_seq = 2;
      }
    },
  };
}

} // namespace

chan::sender_actor spawn_sender(caf::actor_system& sys, qq_config cfg) {
  return sys.spawn<caf::detached>(sender_impl, std::move(cfg));
}

} // namespace nb::qq
