// Which agent answers an inbound message, and the session key that follows:
// `{agent}:{base}` where base is today's `{channel}:{chat_id}` (or the
// adapter's override), except for "main", whose keys stay unprefixed so
// every session file of a single-agent gateway stays valid.
#pragma once

#include <string>
#include <vector>

#include "config/settings.hpp"
#include "messages/chat.hpp"

namespace nb {

/// What a binding can match on, as the channel manager sees a message.
struct route_facts {
  std::string channel;  ///< the platform (channels.<name>.type, else name)
  std::string instance; ///< the channel's name (channels.<name>)
  std::string chat_id;
  std::string sender_id;
  bool group = false;
};

/// The agent of the most specific binding matching `facts` (chat id before
/// sender, sender before group/direct, that before the channel instance;
/// ties go to the earlier entry), or "main".
std::string match_binding(const std::vector<agent_binding>& bindings,
                          const route_facts& facts);

/// The agent a message with `facts` goes to: the agent a client asked for
/// (`requested`, the WebSocket's agent=) when a binding matching `facts`
/// names it, else the bindings' choice (match_binding).
std::string choose_agent(const std::vector<agent_binding>& bindings,
                         const route_facts& facts,
                         const std::string& requested);

/// The inbound metadata key naming the agent ("" = not resolved yet).
inline constexpr const char* agent_meta_key = "_agent";

/// The agent stamped on `in` ("" when none is).
std::string agent_of(const inbound_msg& in);

/// Stamps `agent` on `in` (metadata "_agent").
void set_agent(inbound_msg& in, const std::string& agent);

/// Stamps the bindings' agent on `in` unless one is already stamped (an
/// explicit choice: the API's model, the WebSocket's agent=, cron, ...).
/// `facts` as the caller knows them; empty fields are taken from `in`.
void resolve_agent(inbound_msg& in, const std::vector<agent_binding>& bindings,
                   route_facts facts = {});

/// `{agent}:{base}`, or `base` for "main" (and for "").
std::string agent_session_key(const std::string& agent,
                              const std::string& base);

/// The key that serialises `in`'s conversation in its agent (the router,
/// the cluster's hash and the inbox all use this one).
std::string routed_session_key(const inbound_msg& in);

/// The inbound metadata key marking a temporary chat (the WebUI's, issue
/// 20): set by the WebSocket channel only, read by the inbox (which does
/// not journal it) and the router (which gives its session a memory store).
inline constexpr const char* temporary_meta_key = "_temporary";

/// True when `in` belongs to a temporary chat.
bool is_temporary(const inbound_msg& in);

/// The agent a session key belongs to, given the configured ids: the
/// prefix when it names a listed agent, else "main".
std::string agent_of_key(const std::string& key,
                         const std::vector<std::string>& agent_ids);

} // namespace nb
