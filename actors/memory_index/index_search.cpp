// Memory index: a search — full text and vectors, fused and ranked.
#include "actors/memory_index/index_core.hpp"
#include "actors/memory_index/index_core_parts.hpp"

#include <algorithm>
#include <map>

#include "actors/common/meter.hpp"
#include "actors/memory_index/ranking.hpp"

namespace nb::memory {

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
    int newest = q.recall ? recall_newest_matches : 0;
    int per_list = q.recall
                     ? std::clamp(opts_.settings.recall_k
                                    * recall_candidates_per_hit,
                                  10, static_cast<int>(candidates_per_list))
                     : static_cast<int>(candidates_per_list);
    auto safe_match = [&](bool trigrams, const std::string& expr) {
      try {
        return db_->match(trigrams, expr, q.category, per_list, newest);
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
        for (auto id :
             ids_of(db_->contains(run, q.category, per_list, newest)))
          if (std::find(ids.begin(), ids.end(), id) == ids.end())
            ids.push_back(id);
      lists.push_back(std::move(ids));
    }
    if (embedder_ && vectors_.size() > 0) {
      if (auto qv = embed_query(q.query)) {
        ++active;
        std::vector<int64_t> ids;
        auto want = static_cast<size_t>(q.category.empty() ? per_list
                                                           : per_list * 4);
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
          text = shortened(text, budget - used);
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

} // namespace nb::memory
