#include "actors/cluster/front.hpp"

#include <nlohmann/json.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"

namespace nb {

namespace {

constexpr const char* interrupted_text
  = "The turn was interrupted: the agent node running it stopped. Your "
    "message is kept in this conversation; send a new message to continue.";

/// The content of the last user message the store holds for the session
/// (commands and corrupt lines aside); nullopt when there is none.
std::optional<std::string> last_user_text(const session_snapshot& snap) {
  for (auto i = snap.messages.size(); i-- > 0;) {
    auto m = nlohmann::json::parse(snap.messages[i], nullptr, false);
    if (!m.is_object() || m.value("role", "") != "user"
        || m.value("_command", false))
      continue;
    if (m.contains("content") && m["content"].is_string())
      return m["content"].get<std::string>();
    return std::string{};
  }
  return std::nullopt;
}

/// Decides, for the messages a dead node left unanswered, which ones it had
/// already taken in (their user message is in the store: the turn is
/// repaired by the next RESTORE, the sender is told) and which it never
/// started (they go to the new home, in order, ahead of newer ones).
void resolve(front_pointer self, const std::string& key,
             std::deque<front_state::pending> lost,
             std::optional<std::string> last_user) {
  auto& ks = self->state.keys[key];
  // Turns run one after another, so the messages taken in form a prefix:
  // the last one whose text matches the stored user message ends it.
  size_t taken = 0;
  if (last_user)
    for (size_t i = lost.size(); i-- > 0;)
      if (lost[i].msg.content == *last_user) {
        taken = i + 1;
        break;
      }
  for (size_t i = 0; i < taken; ++i)
    notify(self, lost[i].msg, interrupted_text, true);
  for (size_t i = lost.size(); i-- > taken;)
    ks.waiting.push_front(std::move(lost[i].msg));
  log::get("cluster")->warn("[{}] re-homed after its node died: {} turn(s) "
                            "interrupted, {} message(s) resent",
                            key, taken, lost.size() - taken);
  ks.ph = front_state::phase::normal;
  pump(self, key);
}

} // namespace

void notify(front_pointer self, const inbound_msg& msg, std::string text,
            bool is_error) {
  outbound_msg out;
  out.channel = msg.channel;
  out.chat_id = msg.chat_id;
  out.session_key = routed_session_key(msg);
  out.kind = outbound_kind::final_reply;
  out.content = std::move(text);
  out.is_error = is_error;
  if (msg.reply_to)
    self->send(msg.reply_to, std::move(out));
  else if (self->state.svc.outbox)
    self->send(self->state.svc.outbox, std::move(out));
}

void recover_node(front_pointer self, const std::string& id) {
  auto& st = self->state;
  st.ring.remove(id);
  auto timeout = std::chrono::seconds(st.cfg.request_timeout_s);
  for (auto& [key, ks] : st.keys) {
    if (!ks.homed || ks.home != id)
      continue;
    ks.homed = false; // its session there is gone with the node
    for (auto& p : ks.inflight)
      self->send_exit(p.relay, caf::exit_reason::user_shutdown);
    if (ks.inflight.empty())
      continue;
    auto lost = std::move(ks.inflight);
    ks.inflight.clear();
    ks.ph = front_state::phase::recovering;
    if (!st.svc.store) {
      resolve(self, key, std::move(lost), std::nullopt);
      continue;
    }
    auto k = key;
    auto held = std::make_shared<std::deque<front_state::pending>>(
      std::move(lost));
    timed_request(self, st.svc.store, timeout, session_load{key})
      .then(
        [=](session_snapshot& snap) {
          resolve(self, k, std::move(*held), last_user_text(snap));
        },
        [=](caf::error& err) {
          // Unknown state: resending risks a repeated user message, which
          // is better than a lost one.
          log::get("cluster")->error("[{}] cannot read the session after its "
                                     "node died ({}): resending",
                                     k, self->system().render(err));
          resolve(self, k, std::move(*held), std::nullopt);
        });
  }
}

} // namespace nb
