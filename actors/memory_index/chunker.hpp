// Memory files → chunks: what the memory index stores and searches. Pure
// (no I/O): MEMORY.md and memory/*.md are cut into bullets and paragraphs,
// history.jsonl into its entries' lines; long pieces into windows of about
// 400 tokens with 80 tokens of overlap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace nb::memory {

/// One searchable piece of a memory file.
struct chunk {
  std::string source;     ///< the file below the workspace: "memory/MEMORY.md", ...
  int32_t line_start = 0; ///< 1-based, inclusive
  int32_t line_end = 0;
  std::string text;       ///< tags removed
  std::string category = "fact"; ///< fact, profile or experience
  bool permanent = false; ///< "[permanent]": exempt from time decay
  double importance = 0.5; ///< 0..1; "[important]" and "[permanent]" raise it
  int64_t created = 0;    ///< Unix seconds; 0 = when first indexed
  /// Identity within its source: text, category and flags hashed, plus the
  /// occurrence number of identical pieces (so moving a line keeps it).
  std::string key;
};

/// Window size and overlap in bytes: ~4 bytes per token for 400 and 80.
inline constexpr size_t chunk_window_bytes = 1600;
inline constexpr size_t chunk_overlap_bytes = 320;
/// At most this many chunks per file; the rest is left out (and logged).
inline constexpr size_t max_chunks_per_file = 20000;
/// Files are read up to this size.
inline constexpr size_t max_file_bytes = 16 * 1024 * 1024;

/// The categories, for argument checks.
bool valid_category(std::string_view c);

/// Chunks of a Markdown memory file. Bullets ("- ", "* ", "1. ") and
/// paragraphs are pieces; headings name the category of what follows
/// ("About the user", "Preferences", "Profile" → profile; "Experience",
/// "Lessons" → experience); "[profile]", "[experience]", "[fact]",
/// "[permanent]" and "[important]" tags at a piece's start override it.
std::vector<chunk> chunk_markdown(const std::string& source,
                                  std::string_view text);

/// Chunks of history.jsonl: each entry's "- " lines (tags as above) and
/// other text; dated by the entry's timestamp. Unreadable lines are skipped.
std::vector<chunk> chunk_history(std::string_view text,
                                 const std::string& source);

/// chunk_history one line at a time, for a file read in windows: the same
/// chunks and keys, while holding only the window's lines and, across
/// windows, a count per distinct piece (to number identical ones).
class history_chunker {
public:
  explicit history_chunker(std::string source) : source_(std::move(source)) {}
  /// Appends the chunks of line `line_no` (1-based) to `out`.
  void add_line(std::string_view line, int32_t line_no,
                std::vector<chunk>& out);
  /// The file's chunk cap is reached: further lines add nothing.
  bool full() const { return total_ >= max_chunks_per_file; }

private:
  std::string source_;
  std::unordered_map<std::string, int> seen_; ///< piece hash -> occurrences
  size_t total_ = 0;
};

/// `text` (Markdown, or a history entry's content) without the bullet or
/// paragraph that produced a chunk with `chunk_text`; nullopt when no piece
/// does any more (the file changed since it was indexed).
std::optional<std::string> without_piece(std::string_view text,
                                         std::string_view chunk_text);

/// Lower-cased, whitespace-collapsed text without punctuation at the ends:
/// equal normalised texts are the same memory.
std::string normalize_text(std::string_view text);

/// A 64-bit FNV-1a hash as 16 hex digits.
std::string hash_hex(std::string_view text);

/// hash_hex of text fed in parts (a file read in blocks).
class text_hash {
public:
  void add(std::string_view text);
  std::string hex() const;

private:
  uint64_t h_ = 1469598103934665603ull;
};

/// Parses "YYYY-MM-DD[ HH:MM]" (local time) into Unix seconds; 0 if not.
int64_t parse_local_time(std::string_view text);

/// "YYYY-MM-DD" of Unix seconds, local time.
std::string local_date(int64_t unix_s);

} // namespace nb::memory
