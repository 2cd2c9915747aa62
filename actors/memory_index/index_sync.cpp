// Memory index: bringing one source file's chunks in step with the file.
// A Markdown file is chunked whole (its headings carry over). history.jsonl
// only grows (every archived turn appends to it) and is synced in windows
// of lines: each window's chunks are compared with the stored chunks on
// those lines and committed before the next window is read, so a sync holds
// one window (sync_window_lines / sync_window_bytes), never the whole file
// and all its stored chunks (which took ~20 MB at a time in the soak).
#include "actors/memory_index/index_core.hpp"
#include "actors/memory_index/index_core_parts.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

namespace nb::memory {

namespace {

/// Whether the stored stamp ("size:mtime;hash") says the file is unchanged.
bool same_stamp(const std::string& stored, const std::string& stamp) {
  return !stamp.empty() && stored.substr(0, stored.find(';')) == stamp;
}

/// The hash part of a stored stamp ("" when there is none).
std::string stored_hash(const std::string& stored) {
  auto semi = stored.find(';');
  return semi == std::string::npos ? std::string{} : stored.substr(semi + 1);
}

} // namespace

bool index_core::sync_source(const std::string& rel, bool force) {
  auto path = opts_.workspace + "/" + rel;
  auto stamp = file_stamp(path);
  auto stored = db_->source_stamp(rel);
  if (!force && stamp.empty() && stored.empty())
    return false;
  if (!force && same_stamp(stored, stamp))
    return false;
  if (rel == history_jsonl)
    return sync_in_windows(rel, path, stamp, stored, force);
  std::string text;
  if (!stamp.empty()) {
    auto read = read_capped(path);
    if (!read) {
      log_->warn("memory: cannot read {}: {}", path, std::strerror(errno));
      return false;
    }
    text = std::move(*read);
  }
  auto hash = hash_hex(text);
  if (!force && stored_hash(stored) == hash && !stored.empty()) {
    db_->set_source_stamp(rel, stamp + ";" + hash);
    return false;
  }
  auto chunks = chunk_markdown(rel, text);
  std::string{}.swap(text);
  if (rel == memory_md)
    std::erase_if(
      chunks, [&](const chunk& c) { return template_keys_.count(c.key) > 0; });
  if (chunks.size() >= max_chunks_per_file)
    log_->warn("memory: {} has more than {} chunks; the rest is not indexed",
               rel, max_chunks_per_file);
  change_count n;
  db_->begin();
  try {
    apply_chunks(chunks, db_->chunks_of(rel), n);
    db_->set_source_stamp(rel, stamp + ";" + hash);
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
  return note_changes(rel, n);
}

bool index_core::sync_in_windows(const std::string& rel,
                                 const std::string& path,
                                 const std::string& stamp,
                                 const std::string& stored, bool force) {
  std::ifstream in;
  if (!stamp.empty()) {
    in.open(path, std::ios::binary);
    if (!in) {
      log_->warn("memory: cannot read {}: {}", path, std::strerror(errno));
      return false;
    }
  }
  // First the hash (in blocks): a touched but unchanged file costs a read.
  text_hash h;
  size_t left = max_file_bytes;
  char block[64 * 1024];
  while (in && left > 0) {
    in.read(block, static_cast<std::streamsize>(std::min(sizeof block, left)));
    auto got = static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0));
    if (got == 0)
      break;
    h.add({block, got});
    left -= got;
  }
  auto hash = h.hex();
  if (!force && !stored.empty() && stored_hash(stored) == hash) {
    db_->set_source_stamp(rel, stamp + ";" + hash);
    return false;
  }
  in.clear();
  in.seekg(0);
  history_chunker chunker{rel};
  change_count n;
  last_sync_ = sync_figures{};
  int32_t line_no = 0;
  size_t consumed = 0; // bytes of the file read, for the cap
  bool more = !stamp.empty();
  std::string line;
  std::vector<chunk> chunks;
  while (more && !chunker.full()) {
    chunks.clear();
    int32_t first = line_no + 1;
    size_t lines = 0, bytes = 0;
    while (lines < sync_window_lines && bytes < sync_window_bytes) {
      if (consumed >= max_file_bytes || !std::getline(in, line)) {
        more = false;
        break;
      }
      if (line.size() > max_file_bytes - consumed)
        line.resize(max_file_bytes - consumed); // the cap cuts this line
      consumed += line.size() + 1;
      bytes += line.size();
      ++lines;
      chunker.add_line(line, ++line_no, chunks);
    }
    if (lines == 0)
      break;
    db_->begin();
    try {
      apply_chunks(chunks, db_->chunks_in_lines(rel, first, line_no), n);
      db_->commit();
    } catch (...) {
      db_->rollback();
      throw;
    }
    ++last_sync_.windows;
    last_sync_.most_lines = std::max(last_sync_.most_lines, lines);
    last_sync_.most_chunks = std::max(last_sync_.most_chunks, chunks.size());
  }
  if (chunker.full())
    log_->warn("memory: {} has more than {} chunks; the rest is not indexed",
               rel, max_chunks_per_file);
  // What the file no longer has (it shrank, went, or reached the cap).
  for (;;) {
    auto ids = db_->ids_after_line(rel, line_no, 512);
    if (ids.empty())
      break;
    db_->begin();
    try {
      for (auto id : ids) {
        db_->remove(id);
        vectors_.erase(id);
        ++n.removed;
      }
      db_->commit();
    } catch (...) {
      db_->rollback();
      throw;
    }
  }
  db_->set_source_stamp(rel, stamp + ";" + hash);
  return note_changes(rel, n);
}

void index_core::apply_chunks(const std::vector<chunk>& chunks,
                              std::vector<stored_chunk> stored,
                              change_count& n) {
  std::map<std::string, stored_chunk> old;
  for (auto& s : stored)
    if (!old.emplace(s.key, s).second) {
      // A second row with a key (a sync cut short between windows): one is
      // enough.
      db_->remove(s.id);
      vectors_.erase(s.id);
      ++n.removed;
    }
  std::vector<stored_chunk>{}.swap(stored);
  auto now = unix_now();
  std::string model = embedder_ ? embedder_->endpoint().model : "";
  auto dims = vectors_.dims();
  for (auto& c : chunks) {
    auto it = old.find(c.key);
    if (it != old.end()) {
      if (it->second.line_start != c.line_start
          || it->second.line_end != c.line_end)
        db_->set_lines(it->second.id, c.line_start, c.line_end);
      old.erase(it);
      continue;
    }
    auto id = db_->insert(c, now);
    ++n.added;
    unembedded_ = true;
    // The embedding cache: a text seen before needs no new request.
    if (embedder_ && dims > 0)
      if (auto v = db_->cached(model, dims, hash_hex(c.text))) {
        db_->set_embedding(id, *v, model);
        vectors_.put(id, v->data());
        ++figures_.cache_hits;
      }
  }
  for (auto& [key, s] : old) {
    db_->remove(s.id);
    vectors_.erase(s.id);
    ++n.removed;
  }
}

bool index_core::note_changes(const std::string& rel, const change_count& n) {
  figures_.added += n.added;
  figures_.removed += n.removed;
  if (n.added + n.removed > 0)
    log_->debug("memory: {} +{} -{} chunks", rel, n.added, n.removed);
  return n.added + n.removed > 0;
}

} // namespace nb::memory
