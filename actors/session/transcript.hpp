// Pure helpers over a session's transcript (JSON message objects): parsing,
// crash repair, and the replay a model call starts from.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/runner/model_message.hpp"

namespace nb {

/// Text of the note that closes a user turn a crash interrupted.
inline constexpr const char* interrupted_turn_note
  = "Error: Task interrupted before a response was generated.";

/// Text of the result given to a tool call a crash interrupted.
inline constexpr const char* interrupted_tool_note
  = "Error: Task interrupted before this tool finished.";

/// Parses stored message texts; texts that are not JSON objects are skipped.
std::vector<nlohmann::json> parse_messages(const std::vector<std::string>& texts);

/// The message's role; "" when it has none or it is not a string.
std::string role_of(const nlohmann::json& m);

/// Whether the message belongs to a slash-command exchange (`_command`
/// true; any other value, e.g. "yes", is not a command).
bool is_command(const nlohmann::json& m);

/// The fields of `m` a provider accepts, repaired, or null when the line
/// cannot be replayed at all: a role providers do not know ("hacker"), a
/// tool result without a tool_call_id. Content of the wrong type becomes
/// text, unusable content parts and tool calls are dropped. The line stays
/// in the file as it was.
nlohmann::json replayable(const nlohmann::json& m);

/// One message of a session's transcript, fixed from the moment it is
/// added: the message as stored, and what the model is given for it (its
/// replayable() form with that form's text, made here, once; a user line
/// with the WebUI's attached apps ("cli_apps") names them after its text,
/// as the original's replay does: "[CLI App Attachment: @name; ...]";
/// null for a
/// command exchange or a line that cannot be replayed). Nothing changes an
/// entry: loading, crash repair, a rewrite or a clear make new entries from
/// messages, so the replay text cannot go stale and nobody has to remember
/// to invalidate it. Copies share the one message and the one made message;
/// the made message reads the model's fields in the stored message when they
/// are the same (model_message), so the transcript holds them once.
///
/// An assistant line's "usage" object is kept apart, as its compact text
/// (a JSON object costs ~600 bytes, its text ~110, and an idle session
/// never reads it): message() is the line without it, usage() gives it
/// back and stored_text() writes the line as it was, usage in place.
class transcript_entry {
public:
  /// Implicit: a message becomes an entry where it joins a transcript.
  transcript_entry(nlohmann::json message);

  /// The stored message, without an assistant's "usage" object (usage()).
  const nlohmann::json& message() const { return line_->message; }
  /// Implicit, so the helpers over messages (role_of, is_command...) read
  /// an entry as its message.
  operator const nlohmann::json&() const { return line_->message; }
  const shared_model_message& replay() const { return replay_; }
  /// The "usage" object as stored (null when the line has none).
  nlohmann::json usage() const;
  /// The line's JSON text as stored, usage included: what a rewrite of the
  /// session file writes for it.
  std::string stored_text() const;

private:
  struct line {
    nlohmann::json message;
    std::string usage; ///< compact JSON text; "" when none
  };
  std::shared_ptr<const line> line_;
  shared_model_message replay_;
};

/// The usage an assistant message recorded (its "usage" object) and the
/// model that answered ("?" when unnamed); null usage when there is none.
struct recorded_usage {
  std::string model;
  nlohmann::json usage;
};
recorded_usage recorded_usage_of(const transcript_entry& m);

/// A session's transcript as it holds it.
using transcript_entries = std::vector<transcript_entry>;

/// Returns the messages that make a transcript legal again after a crash:
/// a result for every tool call of the last assistant message that lacks one,
/// and an assistant note when the transcript ends on a user message.
std::vector<nlohmann::json> repair_tail(const transcript_entries& transcript);

/// Returns the messages to replay to the model: those from index `start`
/// on, command exchanges, unreplayable lines and bookkeeping fields
/// dropped, starting at a user message, at most `limit`. They are the
/// entries' own made messages: nothing is copied or written out again.
std::vector<shared_model_message> replay_history(
  const transcript_entries& transcript, size_t limit, size_t start = 0);

} // namespace nb
