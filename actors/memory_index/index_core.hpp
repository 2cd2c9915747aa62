// One workspace's memory index, without the actor around it: keeps
// <workspace>/memory/index.sqlite in step with MEMORY.md, memory/*.md and
// history.jsonl, embeds chunks in batches, searches, saves and forgets.
// Blocking: runs on the index actor's own thread (or the command line's).
// A corrupt or locked index file is moved aside and rebuilt from the files.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "actors/memory_index/embed_client.hpp"
#include "actors/memory_index/index_db.hpp"
#include "actors/memory_index/vector_set.hpp"
#include "config/memory_config.hpp"
#include "messages/memory.hpp"

namespace nb::memory {

struct index_options {
  std::string workspace; ///< absolute
  memory_settings settings;
  /// Embeddings, when usable; else `embed_problem` says why not.
  std::optional<embed_endpoint> embeddings;
  std::string embed_problem;
  /// After an embeddings failure, full text only for this long.
  std::chrono::seconds retry_after{60};
  /// Bounds the query's embedding call (a search never waits longer).
  std::chrono::seconds query_timeout{5};
};

/// history.jsonl is synced in windows of at most this many lines and
/// about this many bytes (a line longer than that is one window).
inline constexpr size_t sync_window_lines = 256;
inline constexpr size_t sync_window_bytes = 256 * 1024;

/// What the last windowed sync of history.jsonl did (for tests and logs).
struct sync_figures {
  size_t windows = 0;     ///< windows compared and committed
  size_t most_lines = 0;  ///< lines in the largest window
  size_t most_chunks = 0; ///< chunks in the largest window
};

class index_core {
public:
  explicit index_core(index_options opts);
  ~index_core();

  /// Brings the index in step with the files (only those whose size,
  /// time or content changed). Returns true when chunks changed.
  bool sync();
  /// Re-reads every file, ignoring fingerprints.
  void reindex();
  /// Embeds up to one batch of chunks that have no vector yet. True when
  /// more are waiting (and embeddings currently work).
  bool embed_batch();
  /// Whether chunks wait for vectors and the endpoint is not resting.
  bool embeddings_pending();
  /// When a resting endpoint may be tried again (steady clock).
  std::chrono::steady_clock::time_point retry_at() const { return down_until_; }

  memory_hits search(const memory_query& q);
  /// memory_save: the answer for the model; throws std::invalid_argument
  /// for bad input.
  std::string save(const std::string& text, const std::string& category);
  /// memory_forget: the answer for the model.
  std::string forget(int64_t id);
  memory_figures figures();

  const std::string& workspace() const { return opts_.workspace; }
  std::string db_path() const;
  const sync_figures& last_sync() const { return last_sync_; }

private:
  struct change_count {
    int64_t added = 0;
    int64_t removed = 0;
  };
  template <class F>
  auto with_db(F&& f) -> decltype(f());
  void open();
  void rebuild(const std::string& why);
  bool sync_source(const std::string& rel, bool force);
  bool sync_in_windows(const std::string& rel, const std::string& path,
                       const std::string& stamp, const std::string& stored,
                       bool force);
  /// Stores `chunks` over `stored` (the rows they replace): rows whose key
  /// is kept stay (with their vectors), the others go.
  void apply_chunks(const std::vector<chunk>& chunks,
                    std::vector<stored_chunk> stored, change_count& n);
  bool note_changes(const std::string& rel, const change_count& n);
  void load_vectors();
  bool embeddings_up() const;
  void embeddings_failed(const std::string& why);
  std::optional<std::vector<float>> embed_query(const std::string& text);
  std::vector<std::string> source_files() const;

  index_options opts_;
  std::unique_ptr<index_db> db_;
  std::unique_ptr<embed_client> embedder_;
  vector_set vectors_;
  std::set<std::string> template_keys_;
  std::vector<std::string> known_files_; ///< the source files last seen
  /// Each source's file stamp when a sync last went through without error:
  /// while none has changed, a search does not ask the database again.
  std::map<std::string, std::string> synced_stamps_;
  std::shared_ptr<spdlog::logger> log_;
  int64_t chunks_ = -1; ///< cached count (-1: unknown)
  bool unembedded_ = true; ///< chunks may lack vectors (checked when set)
  std::string note_;    ///< the last embeddings problem
  std::chrono::steady_clock::time_point down_until_{};
  memory_figures figures_;
  std::vector<int64_t> latency_hist_;
  sync_figures last_sync_;
};

} // namespace nb::memory
