// The SQLite file behind one workspace's memory index
// (<workspace>/memory/index.sqlite, WAL): chunks, two FTS5 indexes over
// them (unicode61 words, trigrams for Chinese and Japanese), the sources'
// fingerprints and the embedding cache. Blocking: used only by the index
// actor's own thread. Failures throw db_error.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/memory_index/chunker.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace nb::memory {

struct sqlite_library;

/// A failed SQLite call; `corrupt()` when the file itself is bad (not a
/// database, malformed, or locked by someone else past the busy timeout).
class db_error : public std::runtime_error {
public:
  db_error(int code, const std::string& what)
    : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }
  bool corrupt() const;

private:
  int code_;
};

/// A stored chunk, as search and the tools see it.
struct chunk_row {
  int64_t id = 0;
  std::string text;
  std::string source;
  int32_t line_start = 0;
  int32_t line_end = 0;
  std::string category;
  bool permanent = false;
  double importance = 0.5;
  int64_t created = 0;
  int64_t last_recalled = 0;
  int64_t recall_count = 0;
};

/// One chunk of a source as stored: enough to diff against a new chunking.
struct stored_chunk {
  int64_t id = 0;
  std::string key;
  int32_t line_start = 0;
  int32_t line_end = 0;
};

/// A full-text hit: the chunk and its BM25 rank value (lower is better).
struct text_hit {
  int64_t id = 0;
  double bm25 = 0;
};

class index_db {
public:
  /// Opens or creates the index at `path` and checks it. Throws db_error.
  explicit index_db(const std::string& path);
  ~index_db();
  index_db(const index_db&) = delete;
  index_db& operator=(const index_db&) = delete;

  void begin();
  void commit();
  void rollback() noexcept;

  // -- sources and chunks
  std::string source_stamp(const std::string& source);
  void set_source_stamp(const std::string& source, const std::string& stamp);
  std::vector<std::string> sources();
  void forget_source(const std::string& source);
  std::vector<stored_chunk> chunks_of(const std::string& source);
  /// The chunks of `source` starting on lines [first, last].
  std::vector<stored_chunk> chunks_in_lines(const std::string& source,
                                            int32_t first, int32_t last);
  /// Up to `limit` ids of chunks of `source` starting after line `line`.
  std::vector<int64_t> ids_after_line(const std::string& source, int32_t line,
                                      int limit);
  /// Inserts `c` (created = `now` when c.created is 0); returns its id.
  int64_t insert(const chunk& c, int64_t now);
  void set_lines(int64_t id, int32_t first, int32_t last);
  void remove(int64_t id);
  int64_t count();

  // -- search
  /// FTS5 `match` over words (unicode61) or trigrams; best first. With
  /// `newest` > 0 only the newest `newest` matching chunks are ranked.
  std::vector<text_hit> match(bool trigrams, const std::string& fts_query,
                              const std::string& category, int limit,
                              int newest = 0);
  /// Chunks containing `needle` (for CJK words shorter than a trigram);
  /// with `newest` > 0 only among the newest `newest` chunks.
  std::vector<text_hit> contains(const std::string& needle,
                                 const std::string& category, int limit,
                                 int newest = 0);
  std::optional<chunk_row> row(int64_t id);
  /// Rows of `ids` that exist (any order); `category` filters when set.
  std::vector<chunk_row> rows(const std::vector<int64_t>& ids);
  /// Chunks whose normalised text equals `norm` (near-duplicate check).
  std::vector<int64_t> same_text(const std::string& text);
  /// Counts a recall of `ids` (one transaction).
  void mark_recalled(const std::vector<int64_t>& ids, int64_t now);

  // -- embeddings (vectors are unit length, float32)
  /// Chunks without a vector of (model, dims): id and text, oldest first.
  std::vector<std::pair<int64_t, std::string>>
  unembedded(const std::string& model, int32_t dims, int limit);
  void set_embedding(int64_t id, const std::vector<float>& v,
                     const std::string& model);
  /// Calls `each` for every chunk with a vector of (model, dims).
  void each_embedding(const std::string& model, int32_t dims,
                      const std::function<void(int64_t, const float*)>& each);
  int64_t count_embedded(const std::string& model, int32_t dims);
  /// The dimensions of `model`'s stored vectors (0 = none stored).
  int32_t known_dims(const std::string& model);
  std::optional<std::vector<float>> cached(const std::string& model,
                                           int32_t dims,
                                           const std::string& text_hash);
  void cache(const std::string& model, int32_t dims,
             const std::string& text_hash, const std::vector<float>& v);

  /// Bytes on disk: the file and its WAL.
  int64_t file_bytes() const;
  const std::string& path() const { return path_; }

private:
  class stmt;
  void exec(const char* sql);
  [[noreturn]] void fail(int code, const std::string& what);
  const sqlite_library* sql_ = nullptr; ///< loaded by the constructor
  sqlite3* db_ = nullptr;
  std::string path_;
};

/// Moves a bad index file (and its -wal, -shm) aside as
/// <path>.corrupt-<unix ms>; returns the new name ("" if nothing moved).
std::string move_aside(const std::string& path);

} // namespace nb::memory
