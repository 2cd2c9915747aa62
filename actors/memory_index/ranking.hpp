// Hybrid ranking of memory hits, pure: reciprocal rank fusion (k = 60) of
// the full-text and vector lists, time decay with a half-life (profile and
// [permanent] memories never fade), boosts for recall count and
// importance, and near-duplicate merging.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actors/memory_index/index_db.hpp"

namespace nb::memory {

inline constexpr double rrf_k = 60;
/// Cosine at or above which two memories are the same memory.
inline constexpr double duplicate_cosine = 0.95;

/// Each id's fused score over best-first `lists`, scaled so that first
/// place in every one of the `active` lists scores 1.
std::map<int64_t, double>
fuse_ranks(const std::vector<std::vector<int64_t>>& lists, int active);

/// 0.5^(age / half-life); 1 for profile and permanent memories.
double decay(const chunk_row& r, int64_t now, double half_life_days);

/// (1 + 0.1 ln(1 + recalls)) × (0.8 + 0.4 importance): 1 for a new memory
/// of default importance.
double boost(const chunk_row& r);

/// One ranked memory.
struct ranked {
  chunk_row row;
  double score = 0;
};

/// Scores `rows` (fused × decay × boost), best first.
std::vector<ranked> rank_rows(const std::vector<chunk_row>& rows,
                              const std::map<int64_t, double>& fused,
                              int64_t now, double half_life_days);

/// Keeps the best of each group of near-duplicates (equal normalised text,
/// or cosine ≥ duplicate_cosine through `similarity`, which answers
/// nullopt when it cannot tell). `hits` stays in its order.
std::vector<ranked> merge_duplicates(
  std::vector<ranked> hits,
  const std::function<std::optional<double>(int64_t, int64_t)>& similarity);

/// The words of a query for FTS5 (lower case, no stop words), as a
/// `"a"* OR "b"` expression; "" when none.
std::string word_query(std::string_view query);

/// The CJK runs of a query: trigram MATCH expression for runs of three or
/// more characters, and the shorter runs for a substring scan.
struct cjk_terms {
  std::string trigram_query;
  std::vector<std::string> short_runs;
  bool any() const { return !trigram_query.empty() || !short_runs.empty(); }
};
cjk_terms cjk_query(std::string_view query);

} // namespace nb::memory
