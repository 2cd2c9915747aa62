#include "actors/channels/email/email_sender.hpp"

#include <cstdio>
#include <map>
#include <random>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/email/curl_mail.hpp"
#include "actors/channels/email/mail_message.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::email {

namespace {

using nlohmann::json;

/// What a reply needs from the mail it answers.
struct thread_info {
  std::string subject;
  std::string message_id;
  std::string references;
};

struct sender_state {
  sender_state() = default;
  static inline const char* name = "email_sender";
  email_config cfg;
  std::map<std::string, thread_info> threads; ///< by address
  std::mt19937_64 rng{std::random_device{}()};
};

using sender_pointer = chan::sender_actor::stateful_pointer<sender_state>;

std::string new_message_id(sender_state& st) {
  auto at = st.cfg.from_address.find('@');
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(st.rng()));
  return "<nanobot." + std::string{buf} + st.cfg.from_address.substr(at) + ">";
}

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              email_config cfg) {
  name_thread("email.send"); // detached: this is its own thread
  self->state.cfg = cfg;
  return {
    guard("channels", [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      if (m.kind != outbound_kind::final_reply || m.content.empty())
        return caf::ok_atom::value;
      if (!st.cfg.auto_reply_enabled) {
        log::get("channel." + st.cfg.name)
          ->info("autoReplyEnabled is false: reply to {} not mailed",
                 m.chat_id);
        return caf::ok_atom::value;
      }
      auto& t = st.threads[m.chat_id];
      auto text = compose_reply(st.cfg.from_address, m.chat_id,
                                reply_subject(t.subject.empty() ? "nanobot"
                                                                : t.subject,
                                              st.cfg.subject_prefix),
                                t.message_id, t.references, m.content,
                                new_message_id(st));
      auto r = smtp_send(st.cfg, st.cfg.from_address, m.chat_id, text);
      if (!r.error.empty())
        return caf::make_error(caf::sec::runtime_error,
                               "email to " + m.chat_id + ": " + r.error);
      return caf::ok_atom::value;
    }),
    [self](const inbound_msg& in) {
      auto meta = json::parse(in.metadata_json, nullptr, false);
      if (!meta.is_object())
        return;
      self->state.threads[in.chat_id]
        = {meta.value("subject", ""), meta.value("message_id", ""),
           meta.value("references", "")};
    },
  };
}

} // namespace

chan::sender_actor spawn_sender(caf::actor_system& sys, email_config cfg) {
  return sys.spawn<caf::detached>(sender_impl, std::move(cfg));
}

} // namespace nb::email
