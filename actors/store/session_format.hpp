// The session JSONL line format, without I/O: nanobot's metadata record,
// one JSON object per message line, tolerant parsing. Internal to
// actors/store.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

namespace nb::session_format {

/// Ordered, so the metadata line and metadata keys keep their order.
using json = nlohmann::ordered_json;

/// What a session file's text holds.
struct parsed_file {
  bool has_meta = false;
  json meta; ///< the whole metadata record (when has_meta)
  std::vector<std::string> messages; ///< message lines, as written
  /// The original's `{"_type":"provider_state",...}` line, kept as written
  /// so a rewrite does not lose it ("" when there is none).
  std::string provider_state_line;
  int32_t skipped = 0; ///< lines that are not JSON objects
};

/// Splits `text` into lines and sorts them: the first `"_type":"metadata"`
/// record, message objects, and corrupt lines (counted). Blank lines,
/// provider_state and unknown `_type` records are neither.
parsed_file parse_lines(std::string_view text);

/// nanobot's first line, '\n' included:
/// {"_type":"metadata","key","created_at","updated_at","metadata",
///  "last_consolidated":N}. N is the original's count of messages already
/// consolidated; we keep the value a file had (clamped to its messages).
std::string metadata_line(const std::string& key, const std::string& created,
                          const std::string& updated, json meta,
                          int64_t last_consolidated = 0);

/// Where the top-level "updated_at" string of a metadata line sits in
/// `head` (the start of a session file): {offset of its first character,
/// its length}, or nullopt when it is not there in a form that can be
/// overwritten in place (not found, not a plain string, a nested key of
/// that name only).
std::optional<std::pair<size_t, size_t>> updated_at_span(std::string_view head);

/// Whether `line` is the original's provider_state record, recognised by
/// its start as the original does (`{"_type": "provider_state"` then ','
/// or '}'), without decoding its payload.
bool is_provider_state_line(std::string_view line);

/// The provider_state line `line` with `messages` (message lines as
/// stored) added to its state's "pending_messages": the original keeps
/// there the messages that came after its last Responses answer and sends
/// them, after the state's items, at its next request. Each is given as
/// the model sees it (role, content, tool_calls, tool_call_id, name,
/// reasoning_content, thinking_blocks); slash-command exchanges are left
/// out, as from every replay. A state the original would not load
/// (another shape) is given back as it was.
std::string
provider_state_with_pending(std::string_view line,
                            const std::vector<std::string>& messages);

/// The messages as lines, '\n' after each; an error names the first one
/// that is not a JSON object. Texts spanning lines are re-serialised.
caf::expected<std::string> message_lines(const std::string& path,
                                         const std::vector<std::string>& msgs);

} // namespace nb::session_format
