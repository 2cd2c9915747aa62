// index_db, second half: the chunks' embedding vectors and the cache of
// embeddings by text hash (the first half, index_db.cpp, holds the schema,
// sources and chunks).
#include "actors/memory_index/index_db.hpp"
#include "actors/memory_index/index_db_stmt.hpp"

#include <cstring>

namespace nb::memory {

namespace {

std::string blob_of(const std::vector<float>& v) {
  std::string out(v.size() * sizeof(float), '\0');
  if (!v.empty())
    std::memcpy(out.data(), v.data(), out.size());
  return out;
}

} // namespace

std::vector<std::pair<int64_t, std::string>>
index_db::unembedded(const std::string& model, int32_t dims, int limit) {
  std::vector<std::pair<int64_t, std::string>> out;
  stmt s{*this, "SELECT id, text FROM chunks WHERE embedding IS NULL "
                "OR embed_model IS NOT ? OR embed_dims IS NOT ? "
                "ORDER BY id LIMIT ?"};
  s.bind(1, model).bind(2, int64_t{dims}).bind(3, int64_t{limit});
  while (s.step())
    out.emplace_back(s.i64(0), s.text(1));
  return out;
}

void index_db::set_embedding(int64_t id, const std::vector<float>& v,
                             const std::string& model) {
  stmt s{*this, "UPDATE chunks SET embedding = ?, embed_model = ?, "
                "embed_dims = ? WHERE id = ?"};
  s.bind_blob(1, blob_of(v)).bind(2, model);
  s.bind(3, static_cast<int64_t>(v.size())).bind(4, id).run();
}

void index_db::each_embedding(
  const std::string& model, int32_t dims,
  const std::function<void(int64_t, const float*)>& each) {
  stmt s{*this, "SELECT id, embedding FROM chunks WHERE embed_model = ? "
                "AND embed_dims = ? ORDER BY id"};
  s.bind(1, model).bind(2, int64_t{dims});
  while (s.step())
    if (auto* v = s.floats(1, dims))
      each(s.i64(0), v);
}

int64_t index_db::count_embedded(const std::string& model, int32_t dims) {
  stmt s{*this, "SELECT count(*) FROM chunks WHERE embed_model = ? "
                "AND embed_dims = ?"};
  s.bind(1, model).bind(2, int64_t{dims});
  return s.step() ? s.i64(0) : 0;
}

int32_t index_db::known_dims(const std::string& model) {
  stmt s{*this, "SELECT embed_dims FROM chunks WHERE embed_model = ? "
                "AND embed_dims > 0 LIMIT 1"};
  s.bind(1, model);
  return s.step() ? static_cast<int32_t>(s.i64(0)) : 0;
}

std::optional<std::vector<float>>
index_db::cached(const std::string& model, int32_t dims,
                 const std::string& text_hash) {
  stmt s{*this, "SELECT vector FROM embed_cache WHERE model = ? AND dims = ? "
                "AND hash = ?"};
  s.bind(1, model).bind(2, int64_t{dims}).bind(3, text_hash);
  if (!s.step())
    return std::nullopt;
  auto* p = s.floats(0, dims);
  if (p == nullptr)
    return std::nullopt;
  return std::vector<float>(p, p + dims);
}

void index_db::cache(const std::string& model, int32_t dims,
                     const std::string& text_hash,
                     const std::vector<float>& v) {
  stmt s{*this, "INSERT OR REPLACE INTO embed_cache(model, dims, hash, vector) "
                "VALUES (?, ?, ?, ?)"};
  s.bind(1, model).bind(2, int64_t{dims}).bind(3, text_hash);
  s.bind_blob(4, blob_of(v)).run();
}

} // namespace nb::memory
