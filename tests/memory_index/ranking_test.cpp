// Hybrid ranking: fusion, decay, boosts, duplicates, query terms.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "actors/memory_index/ranking.hpp"
#include "actors/memory_index/vector_set.hpp"

using namespace nb::memory;

TEST_CASE("reciprocal rank fusion rewards agreement between lists") {
  auto f = fuse_ranks({{1, 2, 3}, {3, 1}}, 2);
  // 1: 1/61 + 1/62, 3: 1/63 + 1/61, 2: 1/62 only.
  CHECK(f[1] > f[3]);
  CHECK(f[3] > f[2]);
  CHECK(f[1] <= 1.0);
  CHECK(fuse_ranks({{7}}, 1)[7] == doctest::Approx(1.0));
}

TEST_CASE("decay halves a fact per half-life but spares profile and permanent") {
  chunk_row r;
  int64_t now = 100 * 86400;
  r.created = now - 30 * 86400;
  r.category = "fact";
  CHECK(decay(r, now, 30) == doctest::Approx(0.5));
  r.category = "profile";
  CHECK(decay(r, now, 30) == 1);
  r.category = "experience";
  r.permanent = true;
  CHECK(decay(r, now, 30) == 1);
}

TEST_CASE("recalls and importance boost a memory") {
  chunk_row plain;
  CHECK(boost(plain) == doctest::Approx(1.0));
  chunk_row used = plain;
  used.recall_count = 10;
  chunk_row important = plain;
  important.importance = 1.0;
  CHECK(boost(used) > boost(plain));
  CHECK(boost(important) > boost(plain));
}

TEST_CASE("rank order follows fusion times decay times boosts") {
  int64_t now = 1000 * 86400;
  chunk_row fresh{1, "fresh", "m", 1, 1, "fact", false, 0.5, now, 0, 0};
  chunk_row old = fresh;
  old.id = 2;
  old.text = "old";
  old.created = now - 90 * 86400;
  chunk_row old_profile = old;
  old_profile.id = 3;
  old_profile.text = "old profile";
  old_profile.category = "profile";
  // The old fact ranks first in the lists, yet decays below the others.
  auto fused = fuse_ranks({{2, 1, 3}}, 1);
  auto ranked = rank_rows({fresh, old, old_profile}, fused, now, 30);
  REQUIRE(ranked.size() == 3);
  CHECK(ranked[0].row.id == 1);
  CHECK(ranked[1].row.id == 3);
  CHECK(ranked[2].row.id == 2);
}

TEST_CASE("near duplicates are merged into the best of them") {
  std::vector<ranked> hits(3);
  hits[0].row.id = 1;
  hits[0].row.text = "Likes green tea";
  hits[1].row.id = 2;
  hits[1].row.text = "likes green tea.";
  hits[2].row.id = 3;
  hits[2].row.text = "Enjoys green tea";
  auto kept = merge_duplicates(hits, [](int64_t a, int64_t b) {
    return std::optional<double>{(a == 1 && b == 3) ? 0.97 : 0.1};
  });
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].row.id == 1);
}

TEST_CASE("query words drop stop words and quote everything") {
  CHECK(word_query("What is my favourite coffee?") ==
        "\"favourite\"* OR \"coffee\"*");
  CHECK(word_query("the") == "\"the\"");
  CHECK(word_query("a \"quoted\" word") == "\"quoted\"* OR \"word\"*");
}

TEST_CASE("CJK runs become trigram terms and short runs a substring scan") {
  auto t = cjk_query("我喜欢 咖啡");
  CHECK(t.trigram_query == "\"我喜欢\"");
  REQUIRE(t.short_runs.size() == 1);
  CHECK(t.short_runs[0] == "咖啡");
  CHECK_FALSE(cjk_query("plain words").any());
}

TEST_CASE("brute-force vector search returns the nearest first") {
  vector_set set(3);
  std::vector<float> a{1, 0, 0}, b{0, 1, 0}, c{0.9f, 0.1f, 0};
  normalize_vector(c);
  set.put(1, a.data());
  set.put(2, b.data());
  set.put(3, c.data());
  auto top = set.top(a.data(), 2, 0.0f);
  REQUIRE(top.size() == 2);
  CHECK(top[0].first == 1);
  CHECK(top[1].first == 3);
  CHECK(top[0].second == doctest::Approx(1.0).epsilon(0.01));
  set.erase(1);
  CHECK(set.top(a.data(), 1, 0.0f)[0].first == 3);
  CHECK_FALSE(set.contains(1));
  auto s = set.similarity(2, 3);
  REQUIRE(s);
  CHECK(*s == doctest::Approx(0.11).epsilon(0.1));
  std::vector<float> zero{0, 0, 0}, nan{NAN, 1, 0};
  CHECK_FALSE(normalize_vector(zero));
  CHECK_FALSE(normalize_vector(nan));
}

TEST_CASE("past the exact limit the sign-bit prefilter still finds the nearest") {
  const int32_t dims = 64;
  vector_set set(dims);
  std::mt19937 rng{3};
  std::normal_distribution<float> noise;
  auto random_unit = [&] {
    std::vector<float> v(dims);
    for (auto& x : v)
      x = noise(rng);
    normalize_vector(v);
    return v;
  };
  for (int64_t id = 1; id <= 20000; ++id)
    set.put(id, random_unit().data());
  auto query = random_unit();
  auto near = query;
  for (auto& x : near)
    x += 0.2f * noise(rng) / 8;
  normalize_vector(near);
  set.put(777777, near.data());
  auto top = set.top(query.data(), 5, 0.0f);
  REQUIRE(top.size() == 5);
  CHECK(top[0].first == 777777);
  CHECK(top[0].second > 0.9f);
  set.erase(777777);
  CHECK(set.top(query.data(), 1, 0.0f)[0].first != 777777);
}
