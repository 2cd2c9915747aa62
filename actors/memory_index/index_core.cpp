#include "actors/memory_index/index_core.hpp"

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <dirent.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "actors/common/log.hpp"
#include "actors/common/meter.hpp"
#include "actors/memory/memory_file.hpp"
#include "actors/memory/memory_lock.hpp"
#include "actors/memory_index/ranking.hpp"
#include "config/atomic_file.hpp"
#include "config/templates.hpp"

namespace nb::memory {

namespace {

using nlohmann::json;

constexpr const char* memory_md = "memory/MEMORY.md";
constexpr const char* history_jsonl = "memory/history.jsonl";
constexpr size_t candidates_per_list = 50;
constexpr size_t max_save_chars = 2000;

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
  std::string out(max_file_bytes, '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<size_t>(in.gcount()));
  return out;
}

std::string utf8_head(const std::string& s, size_t max) {
  if (s.size() <= max)
    return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut;
  return s.substr(0, cut) + "…";
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

} // namespace

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

template <class F>
auto index_core::with_db(F&& f) -> decltype(f()) {
  if (!db_)
    open();
  try {
    return f();
  } catch (const db_error& e) {
    if (!e.corrupt())
      throw;
    rebuild(e.what());
    return f();
  }
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
  return with_db([&] {
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
}

void index_core::reindex() {
  with_db([&] {
    figures_.added = figures_.removed = 0;
    for (auto& rel : source_files())
      sync_source(rel, true);
    known_files_.clear();
    chunks_ = -1;
    return 0;
  });
  sync();
}

bool index_core::sync_source(const std::string& rel, bool force) {
  auto path = opts_.workspace + "/" + rel;
  auto stamp = file_stamp(path);
  auto stored = db_->source_stamp(rel);
  if (!force && stamp.empty() && stored.empty())
    return false;
  // "size:mtime;hash": the stamp says nothing changed, or the hash does.
  auto semi = stored.find(';');
  if (!force && !stamp.empty() && stored.substr(0, semi) == stamp)
    return false;
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
  if (!force && semi != std::string::npos && stored.substr(semi + 1) == hash) {
    db_->set_source_stamp(rel, stamp + ";" + hash);
    return false;
  }
  auto chunks = rel == history_jsonl ? chunk_history(text)
                                     : chunk_markdown(rel, text);
  if (rel == memory_md)
    std::erase_if(chunks, [&](const chunk& c) {
      return template_keys_.count(c.key) > 0;
    });
  if (chunks.size() >= max_chunks_per_file)
    log_->warn("memory: {} has more than {} chunks; the rest is not indexed",
               rel, max_chunks_per_file);
  std::map<std::string, stored_chunk> old;
  for (auto& s : db_->chunks_of(rel))
    old.emplace(s.key, s);
  auto now = unix_now();
  std::string model = embedder_ ? embedder_->endpoint().model : "";
  auto dims = vectors_.dims();
  int64_t added = 0, removed = 0;
  db_->begin();
  try {
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
      ++added;
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
      ++removed;
    }
    db_->set_source_stamp(rel, stamp + ";" + hash);
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
  figures_.added += added;
  figures_.removed += removed;
  if (added + removed > 0)
    log_->debug("memory: {} +{} -{} chunks", rel, added, removed);
  return added + removed > 0;
}

bool index_core::embeddings_up() const {
  return embedder_ && std::chrono::steady_clock::now() >= down_until_;
}

void index_core::embeddings_failed(const std::string& why) {
  ++figures_.embed_failures;
  note_ = why;
  down_until_ = std::chrono::steady_clock::now() + opts_.retry_after;
  log_->warn("memory: {} (full-text search only for the next {} s)", why,
             opts_.retry_after.count());
}

bool index_core::embeddings_pending() {
  return unembedded_ && embeddings_up();
}

bool index_core::embed_batch() {
  if (!embeddings_up())
    return false;
  return with_db([&] {
    auto& ep = embedder_->endpoint();
    auto batch = db_->unembedded(ep.model, vectors_.dims(),
                                 std::max(1, ep.batch_size));
    if (batch.empty()) {
      unembedded_ = false;
      return false;
    }
    std::vector<std::string> texts;
    for (auto& [id, text] : batch)
      texts.push_back(text);
    ++figures_.embed_calls;
    auto r = embedder_->embed(texts, ep.timeout);
    if (!r.ok()) {
      embeddings_failed(r.error);
      return false;
    }
    if (vectors_.dims() != embedder_->dims())
      vectors_ = vector_set(embedder_->dims());
    note_.clear();
    db_->begin();
    try {
      for (size_t i = 0; i < batch.size(); ++i) {
        db_->set_embedding(batch[i].first, r.vectors[i], ep.model);
        db_->cache(ep.model, vectors_.dims(), hash_hex(batch[i].second),
                   r.vectors[i]);
        vectors_.put(batch[i].first, r.vectors[i].data());
      }
      db_->commit();
    } catch (...) {
      db_->rollback();
      throw;
    }
    return batch.size() >= static_cast<size_t>(std::max(1, ep.batch_size));
  });
}

std::optional<std::vector<float>>
index_core::embed_query(const std::string& text) {
  if (!embeddings_up())
    return std::nullopt;
  auto& ep = embedder_->endpoint();
  auto h = hash_hex(text);
  if (vectors_.dims() > 0)
    if (auto v = db_->cached(ep.model, vectors_.dims(), h)) {
      ++figures_.cache_hits;
      return v;
    }
  ++figures_.embed_calls;
  auto r = embedder_->embed({text}, opts_.query_timeout);
  if (!r.ok()) {
    embeddings_failed(r.error);
    return std::nullopt;
  }
  if (vectors_.dims() == 0)
    vectors_ = vector_set(embedder_->dims());
  if (static_cast<int32_t>(r.vectors[0].size()) != vectors_.dims()) {
    embeddings_failed("embeddings answer changed dimensions");
    return std::nullopt;
  }
  db_->cache(ep.model, vectors_.dims(), h, r.vectors[0]);
  return std::move(r.vectors[0]);
}

memory_hits index_core::search(const memory_query& q) {
  auto started = std::chrono::steady_clock::now();
  memory_hits out;
  sync();
  out.mode = "full-text";
  if (!embedder_)
    out.note = opts_.embed_problem;
  with_db([&] {
    if (chunks_ == 0 || one_line(q.query).empty())
      return 0;
    std::vector<std::vector<int64_t>> lists;
    int active = 0;
    auto ids_of = [](const std::vector<text_hit>& hits) {
      std::vector<int64_t> ids;
      for (auto& h : hits)
        ids.push_back(h.id);
      return ids;
    };
    auto safe_match = [&](bool trigrams, const std::string& expr) {
      try {
        return db_->match(trigrams, expr, q.category, candidates_per_list);
      } catch (const db_error& e) {
        if (e.corrupt())
          throw;
        return std::vector<text_hit>{};
      }
    };
    if (auto words = word_query(q.query); !words.empty()) {
      ++active;
      lists.push_back(ids_of(safe_match(false, words)));
    }
    if (auto cjk = cjk_query(q.query); cjk.any()) {
      ++active;
      std::vector<int64_t> ids;
      if (!cjk.trigram_query.empty())
        ids = ids_of(safe_match(true, cjk.trigram_query));
      for (auto& run : cjk.short_runs)
        for (auto id : ids_of(db_->contains(run, q.category,
                                            candidates_per_list)))
          if (std::find(ids.begin(), ids.end(), id) == ids.end())
            ids.push_back(id);
      lists.push_back(std::move(ids));
    }
    if (embedder_ && vectors_.size() > 0) {
      if (auto qv = embed_query(q.query)) {
        ++active;
        std::vector<int64_t> ids;
        auto want = q.category.empty() ? candidates_per_list
                                       : candidates_per_list * 4;
        for (auto& [id, s] :
             vectors_.top(qv->data(), want,
                          static_cast<float>(opts_.settings.min_similarity)))
          ids.push_back(id);
        lists.push_back(std::move(ids));
        out.mode = "hybrid";
      }
    }
    if (out.mode != "hybrid" && embedder_)
      out.note = !note_.empty() ? "embeddings failing: " + note_
                 : vectors_.size() == 0
                   ? "no vectors computed yet"
                   : "embeddings unavailable";
    auto fused = fuse_ranks(lists, active);
    std::vector<int64_t> ids;
    for (auto& [id, s] : fused)
      ids.push_back(id);
    auto rows = db_->rows(ids);
    if (!q.category.empty())
      std::erase_if(rows, [&](auto& r) { return r.category != q.category; });
    auto now = unix_now();
    auto ranked = rank_rows(rows, fused, now, opts_.settings.half_life_days);
    ranked = merge_duplicates(
      std::move(ranked), [&](int64_t a, int64_t b) -> std::optional<double> {
        return vectors_.similarity(a, b);
      });
    auto k = static_cast<size_t>(
      std::clamp(q.recall ? opts_.settings.recall_k : q.k, 1, 50));
    size_t budget = q.recall ? static_cast<size_t>(
                                 opts_.settings.recall_budget_chars)
                             : SIZE_MAX;
    size_t used = 0;
    std::vector<int64_t> recalled;
    for (auto& r : ranked) {
      if (out.hits.size() >= k)
        break;
      if (q.recall && r.score < opts_.settings.score_floor)
        continue;
      auto text = r.row.text;
      if (q.recall) {
        if (used >= budget)
          break;
        if (used + text.size() > budget) {
          if (!out.hits.empty())
            continue;
          text = utf8_head(text, budget - used);
        }
        used += text.size();
        recalled.push_back(r.row.id);
      }
      out.hits.push_back({r.row.id, std::move(text), r.row.source,
                          r.row.line_start, r.row.line_end, r.row.category,
                          local_date(r.row.created), r.score});
    }
    if (!recalled.empty())
      db_->mark_recalled(recalled, now);
    return 0;
  });
  out.took_us = std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::steady_clock::now() - started)
                  .count();
  ++figures_.searches;
  ++latency_hist_[static_cast<size_t>(latency_bucket(out.took_us))];
  return out;
}

std::string index_core::save(const std::string& raw,
                             const std::string& category_in) {
  auto text = one_line(raw);
  auto category = category_in.empty() ? std::string{"fact"} : category_in;
  if (text.empty())
    throw std::invalid_argument("text is empty");
  if (text.size() > max_save_chars)
    throw std::invalid_argument(
      "text is longer than " + std::to_string(max_save_chars)
      + " characters; save the gist, one fact at a time");
  if (!valid_category(category))
    throw std::invalid_argument("category must be fact, profile or "
                                "experience (got \"" + category + "\")");
  // Tags in the text would change what the line means.
  while (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close > 16)
      break;
    text = one_line(text.substr(close + 1));
  }
  if (text.empty())
    throw std::invalid_argument("text is empty");
  sync();
  return with_db([&]() -> std::string {
    for (auto id : db_->same_text(text))
      if (auto r = db_->row(id))
        return "Already remembered as #" + std::to_string(id) + " ("
               + r->category + ", " + r->source + "); nothing saved.";
    std::optional<std::vector<float>> v;
    if (embedder_ && vectors_.size() > 0) {
      v = embed_query(text);
      if (v)
        for (auto& [id, s] : vectors_.top(v->data(), 1, duplicate_cosine))
          if (auto r = db_->row(id))
            return "Already remembered as #" + std::to_string(id) + ": \""
                   + utf8_head(r->text, 200) + "\"; nothing saved.";
    }
    auto line = category == "fact" ? text : "[" + category + "] " + text;
    std::string error;
    if (add_memory_facts(opts_.workspace, {line}, error) < 0)
      throw std::runtime_error("cannot write memory/MEMORY.md: " + error);
    sync();
    auto ids = db_->same_text(text);
    if (ids.empty())
      return "Saved to memory/MEMORY.md (" + category + ").";
    auto id = ids.back();
    if (v && static_cast<int32_t>(v->size()) == vectors_.dims()) {
      db_->set_embedding(id, *v, embedder_->endpoint().model);
      vectors_.put(id, v->data());
    }
    return "Saved to memory as #" + std::to_string(id) + " (" + category
           + ").";
  });
}

std::string index_core::forget(int64_t id) {
  sync();
  return with_db([&]() -> std::string {
    auto r = db_->row(id);
    if (!r)
      return "No memory #" + std::to_string(id)
             + " (ids change when memory files are edited: search again).";
    auto path = opts_.workspace + "/" + r->source;
    {
      memory_lock lock{opts_.workspace};
      auto text = read_capped(path);
      if (!text)
        return "Cannot read " + r->source + "; nothing forgotten.";
      std::optional<std::string> rewritten;
      if (r->source == history_jsonl) {
        // One entry per line: rewrite that entry's content.
        std::istringstream in{*text};
        std::string out, line;
        int32_t no = 0;
        while (std::getline(in, line)) {
          ++no;
          if (no == r->line_start && !rewritten) {
            auto entry = json::parse(line, nullptr, false);
            if (entry.is_object() && entry.value("content", json()).is_string())
              if (auto rest = without_piece(entry["content"].get<std::string>(),
                                            r->text)) {
                rewritten = "";
                if (one_line(*rest).empty())
                  continue; // nothing left of the entry
                entry["content"] = *rest;
                line = entry.dump(-1, ' ', false,
                                  json::error_handler_t::replace);
              }
          }
          out += line + "\n";
        }
        if (rewritten)
          rewritten = std::move(out);
      } else {
        rewritten = without_piece(*text, r->text);
      }
      if (!rewritten) {
        sync();
        return "Memory #" + std::to_string(id) + " is no longer in "
               + r->source + " as it was indexed; search again.";
      }
      auto w = replace_file_atomic(path, *rewritten, 0644);
      if (w.outcome == write_outcome::failed)
        throw std::runtime_error(w.error);
    }
    sync();
    return "Forgot #" + std::to_string(id) + " (\"" + utf8_head(r->text, 120)
           + "\", removed from " + r->source + ").";
  });
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
