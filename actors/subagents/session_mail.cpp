// send_session_message, the manager's half: the caller's rate limit, the
// message handed to the entry (the durable inbox in a gateway, so it is
// journaled like every inbound message) as user input of the target
// session, and the original's "No reply from @x" notice when a reply was
// expected and none came in time. The tool (actors/tools/session_send.cpp)
// has resolved both sessions already: nothing here touches a file.
#include <random>

#include <nlohmann/json.hpp>

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/log.hpp"
#include "actors/subagents/subagents.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

/// The session key without the agent's prefix: the router puts it back
/// from "_agent".
std::string mail_base_key(const std::string& agent, const std::string& key) {
  if (agent != main_agent && key.rfind(agent + ":", 0) == 0)
    return key.substr(agent.size() + 1);
  return key;
}

/// The chat a session key stands for, split as the original splits it
/// ("telegram:42" -> telegram / 42; no ':' -> cli / the key).
std::pair<std::string, std::string> mail_chat_of(const std::string& base) {
  auto colon = base.find(':');
  if (colon == std::string::npos)
    return {"cli", base};
  return {base.substr(0, colon), base.substr(colon + 1)};
}

std::string mail_message_id(std::mt19937_64& rng) {
  static const char* hex = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 32; ++i)
    id += hex[rng() % 16];
  return id;
}

/// Fires the no-reply notice unless told to forget it first (a reply came,
/// or the same pair sent again). Linked to the manager: it goes when the
/// manager goes, and a normal end of its own leaves the manager alone.
caf::behavior reply_timer(caf::event_based_actor* self, inbound_sink to,
                          inbound_msg notice, std::chrono::seconds after) {
  self->delayed_send(self, after, caf::tick_atom::value);
  return {
    [=](caf::tick_atom) mutable {
      self->send(to, std::move(notice));
      self->quit();
    },
    [=](caf::delete_atom) { self->quit(); },
  };
}

int64_t mail_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
    .count();
}

void cancel_wait(subagents_pointer self, const subagents_state::mail_pair& p) {
  auto& waits = self->state.mail_waits;
  auto i = waits.find(p);
  if (i == waits.end())
    return;
  caf::anon_send(i->second, caf::delete_atom::value);
  waits.erase(i);
}

} // namespace

std::string send_session_mail(subagents_pointer self, session_mail& m) {
  auto& st = self->state;
  if (m.target_key == m.source_key)
    return "Error: a session cannot send a message to itself";
  if (!st.announce_to)
    return "Error: no router to reach session @" + m.target_handle;
  // The original's window: the last 60 s of this session's sends.
  auto now = std::chrono::steady_clock::now();
  auto& sent = st.mail_sent[m.source_key];
  while (!sent.empty() && sent.front() <= now - std::chrono::seconds(60))
    sent.pop_front();
  if (static_cast<int64_t>(sent.size()) >= std::max(1, m.max_per_minute))
    return "Error: session message rate limit reached ("
           + std::to_string(m.max_per_minute) + "/minute)";
  json envelope{{"message_id", mail_message_id(st.rng)},
                {"created_at_ms", mail_now_ms()},
                {"expect_reply", m.expect_reply},
                {"source_handle", m.source_handle},
                {"source_session_key", m.source_key},
                {"target_session_key", m.target_key}};
  inbound_msg in;
  auto base = mail_base_key(m.agent, m.target_key);
  std::tie(in.channel, in.chat_id) = mail_chat_of(base);
  in.sender_id = "session";
  in.content = m.content;
  in.session_key_override = base;
  in.metadata_json = json{{session_message_meta_key, envelope}}.dump(
    -1, ' ', false, json::error_handler_t::replace);
  set_agent(in, m.agent);
  log::get("subagents")
    ->info("[{}] session message to {} ({} bytes)", m.source_key, m.target_key,
           m.content.size());
  self->send(st.announce_to, std::move(in));
  sent.push_back(now);
  // A message back answers the other side's wait; a new one replaces ours.
  cancel_wait(self, {m.target_key, m.source_key});
  if (m.expect_reply) {
    subagents_state::mail_pair mine{m.source_key, m.target_key};
    cancel_wait(self, mine);
    inbound_msg notice;
    notice.channel = m.source_channel;
    notice.chat_id = m.source_chat_id;
    notice.sender_id = "session_timeout";
    notice.content = "No reply from @" + m.target_handle + " after "
                     + std::to_string(m.reply_timeout_seconds) + " seconds.";
    notice.session_key_override = mail_base_key(m.agent, m.source_key);
    notice.metadata_json = json{{"_session_message_timeout", true}}.dump();
    set_agent(notice, m.agent);
    st.mail_waits[mine] =
      self->spawn<caf::linked>(reply_timer, st.announce_to, std::move(notice),
                               std::chrono::seconds(m.reply_timeout_seconds));
  }
  return {};
}

} // namespace nb
