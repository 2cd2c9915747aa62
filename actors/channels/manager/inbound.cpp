// Inbound from the adapters: access control, the owner's /pairing commands,
// then the router. Replies of the turn come back to the manager (reply_to),
// so they get the same ordered, retried delivery as everything else.
#include <chrono>
#include <sstream>

#include <nlohmann/json.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/channels/manager/access.hpp"
#include "actors/channels/manager/manager.hpp"
#include "actors/common/log.hpp"

namespace nb {

namespace {

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

void reply(channel_manager_pointer self, const inbound_msg& to,
           std::string text) {
  outbound_msg out;
  out.channel = to.channel;
  out.chat_id = to.chat_id;
  out.session_key = routed_session_key(to);
  out.content = std::move(text);
  enqueue_outbound(self, std::move(out));
}

std::string pairing_invite(const pairing_request& r) {
  return "This assistant only talks to people its owner has approved. Your "
         "pairing code is " + r.code + " (valid for "
         + std::to_string(pairing_ttl_s / 60) + " minutes). Ask the owner to "
         "approve it with /pairing approve " + r.code
         + " from the WebUI or an approved chat.";
}

/// "/pairing approve|deny <code>" and "/pairing list" from an allowed user.
void pairing_command(channel_manager_pointer self, const inbound_msg& msg) {
  std::istringstream in{msg.content};
  std::string cmd, verb, code;
  in >> cmd >> verb >> code;
  auto& book = self->state.pairing;
  auto now = unix_now();
  if (verb == "approve" && !code.empty()) {
    auto done = book.approve(code, now);
    if (!done) {
      reply(self, msg, "No pending pairing code " + code
                         + " (codes expire after 10 minutes).");
      return;
    }
    save_pairing(self);
    log::get("channels")->info("pairing approved: {} on {}", done->sender_id,
                               done->channel);
    reply(self, msg, "Approved " + done->sender_id + " on " + done->channel
                       + ".");
    inbound_msg them;
    them.channel = done->channel;
    them.chat_id = done->chat_id;
    reply(self, them, "Your pairing was approved; you can talk to the "
                      "assistant now.");
  } else if (verb == "deny" && !code.empty()) {
    bool had = book.deny(code);
    if (had)
      save_pairing(self);
    reply(self, msg, had ? "Pairing code " + code + " withdrawn."
                         : "No pending pairing code " + code + ".");
  } else if (verb == "list") {
    auto pending = book.pending(now);
    std::string text = pending.empty() ? "No pending pairing requests."
                                       : "Pending pairing requests:";
    for (const auto& r : pending)
      text += "\n" + r.code + "  " + r.channel + "  " + r.sender_id
              + "  (expires in " + std::to_string((r.expires_at - now) / 60 + 1)
              + " min)";
    reply(self, msg, text);
  } else {
    reply(self, msg, "Usage: /pairing approve <code> | /pairing deny <code> "
                     "| /pairing list");
  }
}

bool is_pairing_command(const std::string& text) {
  auto start = text.find_first_not_of(" \t\n");
  if (start == std::string::npos || text.compare(start, 8, "/pairing") != 0)
    return false;
  return text.size() == start + 8 || std::isspace(static_cast<unsigned char>(
                                       text[start + 8]));
}

/// Stamps the agent that answers `msg` (the manager is where channel
/// traffic is trusted, so an adapter's own "_agent" never counts): the
/// bindings' choice, or the agent the client asked for ("_agent_request",
/// the WebSocket's agent=) when a binding matching the message names it.
void stamp_agent(channel_manager_pointer self, inbound_msg& msg,
                 const std::string& kind) {
  const auto& bindings = self->state.cfg.bindings;
  if (bindings.empty() && msg.metadata_json.find("_agent") == std::string::npos)
    return; // one agent: nothing to parse, the message stays as it was
  auto meta = nlohmann::json::parse(msg.metadata_json, nullptr, false);
  if (!meta.is_object())
    meta = nlohmann::json::object();
  route_facts facts{kind, msg.channel, msg.chat_id, msg.sender_id, false};
  if (auto g = meta.find("_is_group"); g != meta.end() && g->is_boolean())
    facts.group = g->get<bool>();
  std::string wanted;
  bool changed = false;
  if (auto r = meta.find("_agent_request"); r != meta.end()) {
    wanted = r->is_string() ? r->get<std::string>() : std::string{};
    meta.erase(r);
    changed = true;
  }
  auto agent = choose_agent(bindings, facts, wanted);
  if (agent != main_agent || meta.contains(agent_meta_key)) {
    meta[agent_meta_key] = agent;
    changed = true;
  }
  if (changed)
    msg.metadata_json = meta.dump();
}

} // namespace

namespace {

/// Access control and the owner's /pairing commands: true when `msg` goes
/// on to the router (its reply_to set), false when it was answered or
/// dropped here.
bool admit(channel_manager_pointer self, inbound_msg& msg) {
  auto& st = self->state;
  auto i = st.channels.find(msg.channel);
  if (i == st.channels.end()) {
    log::get("channels")->warn("message from unknown channel '{}' dropped",
                               msg.channel);
    return false;
  }
  switch (check_access(i->second.opts, st.pairing, msg)) {
    case access_verdict::skip_group:
      return false;
    case access_verdict::deny:
      log::get("channels")->warn("access denied for sender {} on channel {} "
                                 "(not in allowFrom)",
                                 msg.sender_id, msg.channel);
      return false;
    case access_verdict::pair: {
      const auto& r = st.pairing.request(msg.channel, msg.sender_id,
                                         msg.chat_id, unix_now(), st.rng);
      log::get("channels")->info("pairing code {} issued to {} on {}", r.code,
                                 msg.sender_id, msg.channel);
      auto text = pairing_invite(r);
      save_pairing(self);
      reply(self, msg, std::move(text));
      return false;
    }
    case access_verdict::allow:
      break;
  }
  if (is_pairing_command(msg.content)) {
    pairing_command(self, msg);
    return false;
  }
  stamp_agent(self, msg, i->second.opts.kind);
  if (!msg.reply_to)
    msg.reply_to = caf::actor_cast<outbound_sink>(self);
  return true;
}

} // namespace

void handle_inbound(channel_manager_pointer self, inbound_msg msg) {
  if (admit(self, msg) && self->state.router)
    self->send(self->state.router, std::move(msg));
}

caf::result<inbox_receipt> record_inbound(channel_manager_pointer self,
                                          inbound_msg msg) {
  auto& st = self->state;
  if (!admit(self, msg))
    return inbox_receipt{};
  if (st.inbox)
    return self->delegate(st.inbox, inbox_record{std::move(msg)});
  if (st.router)
    self->send(st.router, std::move(msg));
  return inbox_receipt{};
}

} // namespace nb
