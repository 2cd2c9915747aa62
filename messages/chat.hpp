// Chat traffic: what channel adapters hand in and what comes back out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>
#include <caf/typed_actor.hpp>
#include <caf/replies_to.hpp>

namespace nb {

/// What an outbound message carries; channels render each kind differently.
enum class outbound_kind : uint8_t {
  final_reply, ///< the turn's answer (or an error text for a failed turn)
  delta,       ///< a piece of streamed answer text
  stream_end,  ///< the streamed segment is complete
  progress,    ///< a tool hint or status line ("running exec ...")
  retry_wait,  ///< the provider is backing off before a retry
};

std::string to_string(outbound_kind x);

/// A message for a user, produced by a session turn.
struct outbound_msg {
  std::string channel;
  std::string chat_id;
  std::string session_key;
  outbound_kind kind = outbound_kind::final_reply;
  std::string content;
  std::string stream_id;
  /// True when the turn ended in an error; `content` then explains it.
  bool is_error = false;
  /// JSON object text with channel-specific extras ("{}" when none).
  std::string metadata_json = "{}";
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, outbound_msg& x) {
  return f(caf::meta::type_name("outbound_msg"), x.channel, x.chat_id,
           x.session_key, x.kind, x.content, x.stream_id, x.is_error,
           x.metadata_json);
}

/// Anything that takes outbound messages: a channel adapter, an API request
/// waiting for its answer, a test. Declared here because inbound_msg carries it.
using outbound_sink = caf::typed_actor<caf::reacts_to<outbound_msg>>;

/// A user (or system) message as a channel adapter hands it to the router.
struct inbound_msg {
  std::string channel;   ///< "cli", "api", "telegram", ...
  std::string sender_id; ///< who wrote it, as the channel names them
  std::string chat_id;   ///< conversation id local to the channel
  std::string content;
  std::vector<std::string> media; ///< local paths or URLs of attachments
  /// JSON object text; reserved keys start with '_' ("{}" when none).
  std::string metadata_json = "{}";
  /// Non-empty: the session key to use instead of "{channel}:{chat_id}".
  std::string session_key_override;
  /// Stream deltas and the final reply to this sink when the turn wants them.
  bool wants_stream = false;
  /// Where replies go; null means "to the channel manager".
  outbound_sink reply_to;
  /// The inbox journal entry holding this message ("" when not journaled);
  /// the session settles it once the message is stored.
  std::string inbox_id;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, inbound_msg& x) {
  return f(caf::meta::type_name("inbound_msg"), x.channel, x.sender_id,
           x.chat_id, x.content, x.media, x.metadata_json,
           x.session_key_override, x.wants_stream, x.reply_to,
           x.inbox_id);
}

/// Returns the key that serialises one conversation.
/// The one session of agents.defaults.unifiedSession (the original's key).
inline constexpr const char* unified_session_key = "unified:default";

inline std::string session_key(const inbound_msg& x) {
  return x.session_key_override.empty() ? x.channel + ':' + x.chat_id
                                        : x.session_key_override;
}

} // namespace nb
