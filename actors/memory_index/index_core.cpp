#include "actors/memory_index/index_core.hpp"
#include "actors/memory_index/index_core_parts.hpp"

#include <ctime>
#include <fstream>
#include <stdexcept>

#include <dirent.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "actors/common/log.hpp"
#include "actors/common/meter.hpp"
#include "actors/common/utf8.hpp"
#include "actors/memory/memory_file.hpp"
#include "actors/memory/memory_lock.hpp"
#include "actors/memory_index/ranking.hpp"
#include "config/atomic_file.hpp"
#include "config/templates.hpp"

namespace nb::memory {

int64_t unix_now() { return static_cast<int64_t>(std::time(nullptr)); }

/// "size:mtime-ns", or "" when the file does not exist.
std::string file_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return {};
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec)
         + "." + std::to_string(st.st_mtim.tv_nsec);
}

/// The file's first max_file_bytes bytes; nullopt when it cannot be read.
std::optional<std::string> read_capped(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return std::nullopt;
  // As large as the file, not the cap: a buffer of max_file_bytes (16 MB,
  // zero-filled) for a file of a few KB was most of a sync's memory.
  struct stat st {};
  auto size = ::stat(path.c_str(), &st) == 0 && st.st_size > 0
                ? static_cast<size_t>(st.st_size)
                : size_t{0};
  std::string out;
  out.reserve(std::min(size, max_file_bytes));
  char block[64 * 1024];
  while (out.size() < max_file_bytes) {
    auto want = std::min(sizeof block, max_file_bytes - out.size());
    in.read(block, static_cast<std::streamsize>(want));
    if (in.gcount() <= 0)
      break;
    out.append(block, static_cast<size_t>(in.gcount()));
  }
  return out;
}

/// `s` cut to at most `max` bytes on a character boundary, "…" when cut.
std::string shortened(const std::string& s, size_t max) {
  return s.size() <= max ? s : std::string{utf8_head(s, max)} + "…";
}

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t')
      c = ' ';
  auto a = s.find_first_not_of(' ');
  if (a == std::string::npos)
    return {};
  return s.substr(a, s.find_last_not_of(' ') - a + 1);
}

index_core::index_core(index_options opts)
  : opts_(std::move(opts)), log_(log::get("memory")),
    latency_hist_(latency_buckets, 0) {
  figures_.workspace = opts_.workspace;
  for (auto& t : workspace_templates())
    if (t.path == memory_md)
      for (auto& c : chunk_markdown(memory_md, t.content))
        template_keys_.insert(c.key);
  if (opts_.embeddings)
    embedder_ = std::make_unique<embed_client>(*opts_.embeddings);
}

index_core::~index_core() = default;

std::string index_core::db_path() const {
  return opts_.workspace + "/memory/index.sqlite";
}

void index_core::open() {
  ::mkdir((opts_.workspace + "/memory").c_str(), 0755);
  try {
    db_ = std::make_unique<index_db>(db_path());
  } catch (const db_error& e) {
    if (!e.corrupt())
      throw;
    auto aside = move_aside(db_path());
    if (aside.empty())
      throw; // not the file's fault (no directory, no permission)
    log_->warn("memory index {} is unusable ({}); moved aside to {} and "
               "rebuilt from the memory files", db_path(), e.what(), aside);
    db_ = std::make_unique<index_db>(db_path());
  }
  chunks_ = -1;
  known_files_.clear();
  synced_stamps_.clear();
  unembedded_ = true;
  load_vectors();
}

void index_core::rebuild(const std::string& why) {
  db_.reset();
  auto aside = move_aside(db_path());
  log_->warn("memory index {} failed ({}); moved aside to {} and rebuilt "
             "from the memory files", db_path(), why,
             aside.empty() ? "(nothing to move)" : aside);
  db_ = std::make_unique<index_db>(db_path());
  chunks_ = -1;
  known_files_.clear();
  synced_stamps_.clear();
  unembedded_ = true;
  vectors_.clear();
  load_vectors();
  for (auto& rel : source_files())
    sync_source(rel, true);
}

void index_core::load_vectors() {
  if (!embedder_)
    return;
  auto dims = embedder_->dims();
  if (dims == 0)
    dims = db_->known_dims(embedder_->endpoint().model);
  vectors_ = vector_set(dims);
  if (dims == 0)
    return;
  db_->each_embedding(embedder_->endpoint().model, dims,
                      [&](int64_t id, const float* v) { vectors_.put(id, v); });
}

std::vector<std::string> index_core::source_files() const {
  std::vector<std::string> out{memory_md, history_jsonl};
  if (auto* dir = ::opendir((opts_.workspace + "/memory").c_str())) {
    while (auto* e = ::readdir(dir)) {
      std::string name = e->d_name;
      if (name.size() > 3 && name.ends_with(".md") && name != "MEMORY.md"
          && name[0] != '.')
        out.push_back("memory/" + name);
    }
    ::closedir(dir);
  }
  std::sort(out.begin() + 2, out.end());
  return out;
}

bool index_core::sync() {
  std::map<std::string, std::string> stamps;
  for (auto& rel : source_files())
    stamps[rel] = file_stamp(opts_.workspace + "/" + rel);
  if (!synced_stamps_.empty() && stamps == synced_stamps_ && chunks_ >= 0)
    return false;
  bool changed = with_db([&] {
    bool changed = false;
    auto files = source_files();
    for (auto& rel : files)
      changed = sync_source(rel, false) || changed;
    // A file that went away takes its chunks with it.
    if (files != known_files_) {
      for (auto& known : db_->sources())
        if (std::find(files.begin(), files.end(), known) == files.end()) {
          for (auto& c : db_->chunks_of(known))
            vectors_.erase(c.id);
          db_->forget_source(known);
          changed = true;
        }
      known_files_ = std::move(files);
    }
    if (changed || chunks_ < 0)
      chunks_ = db_->count();
    return changed;
  });
  // A file written while it was read shows a newer stamp next time.
  synced_stamps_ = std::move(stamps);
  return changed;
}

void index_core::reindex() {
  with_db([&] {
    figures_.added = figures_.removed = 0;
    for (auto& rel : source_files())
      sync_source(rel, true);
    known_files_.clear();
    synced_stamps_.clear();
    chunks_ = -1;
    return 0;
  });
  sync();
}

memory_figures index_core::figures() {
  auto f = figures_;
  with_db([&] {
    if (chunks_ < 0)
      chunks_ = db_->count();
    f.chunks = chunks_;
    f.index_bytes = db_->file_bytes();
    if (embedder_)
      f.embedded = db_->count_embedded(embedder_->endpoint().model,
                                       vectors_.dims());
    return 0;
  });
  auto pct = [&](double p) -> int64_t {
    int64_t total = 0;
    for (auto n : latency_hist_)
      total += n;
    if (total == 0)
      return 0;
    int64_t seen = 0;
    for (size_t b = 0; b < latency_hist_.size(); ++b) {
      seen += latency_hist_[b];
      if (static_cast<double>(seen) >= p * static_cast<double>(total))
        return latency_bucket_bound(static_cast<int>(b));
    }
    return 0;
  };
  f.search_p50_us = pct(0.5);
  f.search_p99_us = pct(0.99);
  bool hybrid = embeddings_up() && f.embedded > 0;
  f.mode = hybrid ? "hybrid" : "full-text";
  f.note = !embedder_       ? opts_.embed_problem
           : !note_.empty() ? "embeddings failing: " + note_
           : hybrid         ? std::string{}
                            : "no vectors computed yet";
  return f;
}

} // namespace nb::memory
