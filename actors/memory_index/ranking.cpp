#include "actors/memory_index/ranking.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace nb::memory {

std::map<int64_t, double>
fuse_ranks(const std::vector<std::vector<int64_t>>& lists, int active) {
  std::map<int64_t, double> out;
  if (active <= 0)
    return out;
  auto best = active / (rrf_k + 1);
  for (auto& list : lists)
    for (size_t rank = 0; rank < list.size(); ++rank)
      out[list[rank]] += 1.0 / (rrf_k + 1 + static_cast<double>(rank));
  for (auto& [id, s] : out)
    s /= best;
  return out;
}

double decay(const chunk_row& r, int64_t now, double half_life_days) {
  if (r.permanent || r.category == "profile" || half_life_days <= 0)
    return 1;
  auto age_days = std::max<double>(0, static_cast<double>(now - r.created))
                  / 86400.0;
  return std::pow(0.5, age_days / half_life_days);
}

double boost(const chunk_row& r) {
  auto recalls = static_cast<double>(std::max<int64_t>(0, r.recall_count));
  auto importance = std::clamp(r.importance, 0.0, 1.0);
  return (1 + 0.1 * std::log1p(recalls)) * (0.8 + 0.4 * importance);
}

std::vector<ranked> rank_rows(const std::vector<chunk_row>& rows,
                              const std::map<int64_t, double>& fused,
                              int64_t now, double half_life_days) {
  std::vector<ranked> out;
  out.reserve(rows.size());
  for (auto& r : rows) {
    auto f = fused.find(r.id);
    if (f == fused.end())
      continue;
    out.push_back({r, f->second * decay(r, now, half_life_days) * boost(r)});
  }
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) {
    return a.score != b.score ? a.score > b.score : a.row.id > b.row.id;
  });
  return out;
}

std::vector<ranked> merge_duplicates(
  std::vector<ranked> hits,
  const std::function<std::optional<double>(int64_t, int64_t)>& similarity) {
  std::vector<ranked> kept;
  std::set<std::string> texts;
  for (auto& h : hits) {
    auto norm = normalize_text(h.row.text);
    if (texts.count(norm))
      continue;
    bool same = false;
    for (auto& k : kept) {
      auto s = similarity ? similarity(k.row.id, h.row.id) : std::nullopt;
      if (s && *s >= duplicate_cosine) {
        same = true;
        break;
      }
    }
    if (same)
      continue;
    texts.insert(std::move(norm));
    kept.push_back(std::move(h));
  }
  return kept;
}

namespace {

const std::set<std::string>& stop_words() {
  static const std::set<std::string> words{
    "a",     "an",    "and",  "are",   "as",    "at",    "be",    "but",
    "by",    "can",   "did",  "do",    "does",  "for",   "from",  "had",
    "has",   "have",  "he",   "her",   "his",   "how",   "i",     "if",
    "in",    "is",    "it",   "its",   "me",    "my",    "no",    "not",
    "of",    "on",    "or",   "our",   "she",   "so",    "that",  "the",
    "their", "them",  "then", "there", "these", "they",  "this",  "to",
    "was",   "we",    "were", "what",  "when",  "where", "which", "who",
    "why",   "will",  "with", "would", "you",   "your",  "about", "tell",
    "know",  "remember", "please", "any", "all", "some", "again"};
  return words;
}

/// The code point at `s[i]` and its length in bytes (1 for bad bytes).
std::pair<uint32_t, size_t> code_point(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3
           : (c >> 3) == 30 ? 4 : 1;
  if (i + n > s.size())
    return {c, 1};
  uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
  for (size_t k = 1; k < n; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  return {cp, n};
}

bool is_cjk(uint32_t cp) {
  return (cp >= 0x3040 && cp <= 0x30ff)    // hiragana, katakana
         || (cp >= 0x3400 && cp <= 0x4dbf) // CJK extension A
         || (cp >= 0x4e00 && cp <= 0x9fff) // CJK unified
         || (cp >= 0xac00 && cp <= 0xd7af) // hangul
         || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x2fa1f);
}

bool is_word_char(uint32_t cp) {
  if (cp < 0x80)
    return std::isalnum(static_cast<int>(cp)) != 0;
  return !is_cjk(cp) && cp >= 0xc0 && !(cp >= 0x2000 && cp <= 0x2bff)
         && !(cp >= 0x3000 && cp <= 0x303f) && !(cp >= 0xff00 && cp <= 0xffef);
}

std::string fts_quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string{"\"\""} : std::string(1, c);
  return out + "\"";
}

} // namespace

std::string word_query(std::string_view query) {
  std::vector<std::string> words, all;
  std::string cur;
  auto flush = [&] {
    if (cur.empty())
      return;
    all.push_back(cur);
    if (cur.size() > 1 && !stop_words().count(cur))
      words.push_back(cur);
    cur.clear();
  };
  for (size_t i = 0; i < query.size();) {
    auto [cp, n] = code_point(query, i);
    if (is_word_char(cp)) {
      for (size_t k = 0; k < n; ++k)
        cur += static_cast<char>(
          n == 1 ? std::tolower(static_cast<unsigned char>(query[i]))
                 : query[i + k]);
    } else {
      flush();
    }
    i += n;
  }
  flush();
  if (words.empty())
    words = all; // only stop words: search them rather than nothing
  std::set<std::string> seen;
  std::string out;
  for (auto& w : words) {
    if (!seen.insert(w).second || seen.size() > 32)
      continue;
    if (!out.empty())
      out += " OR ";
    out += fts_quoted(w);
    if (w.size() >= 4)
      out += '*'; // "coffee" finds "coffees"
  }
  return out;
}

cjk_terms cjk_query(std::string_view query) {
  cjk_terms out;
  std::vector<std::string> runs;
  std::string cur;
  size_t chars = 0;
  auto flush = [&] {
    if (chars >= 3) {
      runs.push_back(cur);
    } else if (chars == 2) {
      out.short_runs.push_back(cur);
    }
    cur.clear();
    chars = 0;
  };
  for (size_t i = 0; i < query.size();) {
    auto [cp, n] = code_point(query, i);
    if (is_cjk(cp)) {
      cur.append(query.substr(i, n));
      ++chars;
    } else {
      flush();
    }
    i += n;
  }
  flush();
  // Every three-character piece of each run, so a question finds a text
  // sharing any word-sized part of it (BM25 ranks texts sharing more).
  std::set<std::string> grams;
  for (auto& run : runs) {
    std::vector<size_t> starts;
    for (size_t i = 0; i < run.size();) {
      starts.push_back(i);
      i += code_point(run, i).second;
    }
    starts.push_back(run.size());
    for (size_t j = 0; j + 3 < starts.size() && grams.size() < 64; ++j)
      grams.insert(run.substr(starts[j], starts[j + 3] - starts[j]));
  }
  for (auto& g : grams) {
    if (!out.trigram_query.empty())
      out.trigram_query += " OR ";
    out.trigram_query += fts_quoted(g);
  }
  return out;
}

} // namespace nb::memory
