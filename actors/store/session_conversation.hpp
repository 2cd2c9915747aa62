// The session file's provider_state line (the original's private record of
// a Responses conversation) as conversation_state values: read for a turn,
// written after one, carried through rewrites. Internal to actors/store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actors/store/session_format.hpp"
#include "messages/conversation.hpp"

namespace nb::session_format {

/// The line ('\n' included) that holds `state`: {"_type":
/// "provider_state", "state": record} with `state.pending` added to the
/// record's pending_messages; "" when there is no record (the line goes).
std::string conversation_line(const conversation_state& state);

/// The state a provider_state line holds (its record's text), or none when
/// the original would not load it (ProviderConversationState's checks:
/// kind, provider and model non-empty text, version an integer, payload
/// an object, pending_messages a list of objects).
conversation_state conversation_of_line(std::string_view line);

/// The state of a session file from its first lines (`head`): its second
/// line, where both programs write the provider_state record.
conversation_state conversation_of_head(std::string_view head,
                                        bool& has_line);

/// The messages of a rewrite (`messages`, after the kept ones) that come
/// after those a saved state covers (`old_tail`: the stored messages after
/// the kept ones, which its pending messages already hold); nullopt when
/// the rewrite lost or changed one of them (the state goes).
std::optional<std::vector<std::string>>
messages_after_state(const std::vector<std::string>& old_tail,
                     const std::vector<std::string>& messages);

/// The provider_state line `line` (no '\n') with `after` added to its
/// pending messages as the model is given them (images as data-URL parts,
/// read from their files: blocking).
std::string state_line_continued(std::string_view line,
                                 std::vector<std::string> after);

/// The provider_state line for a rewrite of `old` into its first `keep`
/// messages and then `messages` ('\n' included; "" drops it). While every
/// message it covers stays (the same JSON), it stays, and the messages
/// after them go into its pending messages, as the original's own turns
/// leave them (a user message's attached images as data-URL parts, read
/// from their files): going back, it continues with our turns too. A transcript
/// that lost or changed one of them (/new, a trim) drops it, as the
/// original drops it when it clears or trims a session; it then sends the
/// whole transcript.
std::string carried_provider_state(const parsed_file& old,
                                   const std::vector<std::string>& messages,
                                   uint64_t keep);

} // namespace nb::session_format
