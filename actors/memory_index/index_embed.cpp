// Memory index: computing embeddings — chunks in batches, queries with a
// cache — and standing down while the endpoint fails.
#include "actors/memory_index/index_core.hpp"
#include "actors/memory_index/index_core_parts.hpp"

#include <algorithm>

namespace nb::memory {

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

} // namespace nb::memory
