// Archiving old turns into memory/history.jsonl in the background: when the
// replay no longer fits the input budget, when a chat was idle for a while,
// and on /new. A model call writes the summary; if it fails the turns are
// archived raw, so nothing is ever lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/session/transcript.hpp"

namespace nb {

struct session_state;

/// Messages always replayed after an archive, however old.
inline constexpr size_t min_replay_messages = 8;

/// Where the replay of `transcript` starts: after the archived part
/// (`archived`), but never later than the last `min_replay_messages`
/// messages, moved back to a user message.
size_t replay_start(const transcript_entries& transcript,
                    size_t archived);

/// The token estimate of a session's replay (from its start to the end of
/// the transcript), carried from turn to turn: a turn counts only the
/// messages appended since and drops those its start moved past, instead of
/// summing the whole unarchived transcript again (a long chat's turn would
/// otherwise cost more with every message).
struct replay_estimate {
  int64_t sum = 0;
  size_t from = 0;      ///< file index of the first message counted
  size_t upto = 0;      ///< file index past the last one counted
  int generation = -1;  ///< the conversation counted (/new starts another)
};

/// The estimate of the messages from `start` on, `transcript` holding the
/// session file's messages from number `base` on. Messages are only ever
/// appended, dropped from the front, or all cleared (a new generation); a
/// change it cannot follow (the range shrank or moved back) recounts.
int64_t replay_tokens(replay_estimate& e,
                      const transcript_entries& transcript,
                      size_t base, size_t start, int generation);

/// The index up to which to archive so that about `excess` tokens leave
/// the replay: the first user message after `from` with at least that many
/// tokens before it, else the last user message after `from`. nullopt when
/// there is no user message to cut at.
std::optional<size_t> archive_boundary(
  const transcript_entries& transcript, size_t from, int64_t excess);

/// Messages [from, upto) as "[time] ROLE: text" lines for the archive.
std::string format_for_archive(const transcript_entries& transcript,
                               size_t from, size_t upto);

/// The raw archive entry used when no summary could be made.
std::string raw_archive(const std::string& formatted, size_t count);

/// The model request text asking for a summary of `formatted`.
std::string archive_prompt(const std::string& formatted);

/// The model's answer when nothing in a range is worth keeping: the range
/// counts as archived, but nothing is written.
inline constexpr const char* nothing_to_archive = "(nothing)";

/// Longest summary kept (bytes, cut on a UTF-8 boundary).
inline constexpr size_t summary_cap = 8000;

/// The model's summary made ready to store: <think>...</think> blocks and
/// surrounding blank space removed, cut at summary_cap. "" when nothing is
/// left (the summary counts as failed).
std::string clean_summary(const std::string& reply);

/// Lines of a summary that belong in MEMORY.md: "[permanent]" ones
/// (without the mark) and "[profile]" ones (with their tag).
std::vector<std::string> permanent_facts(const std::string& summary);

} // namespace nb
