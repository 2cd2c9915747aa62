// One workspace's index on real files and a real SQLite file, with a
// scripted /v1/embeddings server on 127.0.0.1.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "actors/memory_index/index_core.hpp"
#include "tests/support/fake_embeddings.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::memory;

namespace {

index_options options_for(const std::string& ws,
                          const test::fake_embeddings* emb = nullptr,
                          int batch = 64) {
  index_options o;
  o.workspace = ws;
  if (emb) {
    embed_endpoint ep;
    ep.provider = "emb";
    ep.api_base = emb->base_url();
    ep.model = "fake-embed";
    ep.dimensions = emb->dims();
    ep.batch_size = batch;
    ep.timeout = std::chrono::seconds(5);
    o.embeddings = ep;
  } else {
    o.embed_problem = "no embeddings provider configured";
  }
  return o;
}

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(
    std::filesystem::path(path).parent_path());
  std::ofstream{path, std::ios::binary | std::ios::trunc} << text;
}

memory_query index_query(const std::string& ws, const std::string& text,
                         int k = 5) {
  memory_query q;
  q.workspace = ws;
  q.query = text;
  q.k = k;
  return q;
}

void embed_all(index_core& idx) {
  while (idx.embed_batch()) {
  }
}

} // namespace

TEST_CASE("a saved memory is found by meaning from a fresh index") {
  test::scratch_dir ws;
  test::fake_embeddings emb;
  emb.map("espresso", 3);
  emb.map("coffee", 3);
  {
    index_core idx{options_for(ws.path, &emb)};
    write(ws.at("memory/MEMORY.md"), "# Memory\n\n- The office is in Turin\n");
    idx.sync();
    embed_all(idx);
    auto r = idx.save("My favourite drink is a double espresso", "profile");
    CHECK(r.find("Saved to memory as #") == 0);
  }
  CHECK(test::read_all(ws.at("memory/MEMORY.md"))
          .find("- [profile] My favourite drink is a double espresso")
        != std::string::npos);
  // A new process (a new session): only the files and the index remain.
  index_core idx{options_for(ws.path, &emb)};
  auto hits = idx.search(index_query(ws.path, "Which coffee should I order?"));
  CHECK(hits.mode == "hybrid");
  REQUIRE_FALSE(hits.hits.empty());
  CHECK(hits.hits[0].text == "My favourite drink is a double espresso");
  CHECK(hits.hits[0].category == "profile");
  CHECK(hits.hits[0].source == "memory/MEMORY.md");
  CHECK(hits.hits[0].date.size() == 10);
}

TEST_CASE("full text finds Chinese and Japanese memories") {
  test::scratch_dir ws;
  write(ws.at("memory/notes.md"), "- 我喜欢喝咖啡\n- 東京に住んでいます\n"
                                  "- The cat is called Pixel\n");
  index_core idx{options_for(ws.path)};
  auto zh = idx.search(index_query(ws.path, "咖啡"));
  REQUIRE(zh.hits.size() == 1);
  CHECK(zh.hits[0].text == "我喜欢喝咖啡");
  CHECK(zh.mode == "full-text");
  auto ja = idx.search(index_query(ws.path, "東京に住む"));
  REQUIRE(ja.hits.size() == 1);
  CHECK(ja.hits[0].source == "memory/notes.md");
  CHECK(idx.search(index_query(ws.path, "pixel")).hits.size() == 1);
}

TEST_CASE("the same memory is never stored twice") {
  test::scratch_dir ws;
  test::fake_embeddings emb;
  emb.map("allergic", 5);
  emb.map("allergy", 5);
  index_core idx{options_for(ws.path, &emb)};
  CHECK(idx.save("Allergic to peanuts", "profile").find("Saved") == 0);
  CHECK(idx.save("allergic to peanuts.", "profile").find("Already") == 0);
  embed_all(idx);
  // A paraphrase with a near vector (cosine >= 0.95) is the same memory.
  CHECK(idx.save("Has a peanut allergy", "profile").find("Already") == 0);
  auto text = test::read_all(ws.at("memory/MEMORY.md"));
  CHECK(text.find("Allergic to peanuts") != std::string::npos);
  CHECK(text.find("peanut allergy") == std::string::npos);
  // Search results merge duplicates that sit in different files.
  write(ws.at("memory/extra.md"), "- allergic to peanuts\n");
  auto hits = idx.search(index_query(ws.path, "peanuts"));
  CHECK(hits.hits.size() == 1);
}

TEST_CASE("bad memory_save input gets a clear error") {
  test::scratch_dir ws;
  index_core idx{options_for(ws.path)};
  CHECK_THROWS_WITH_AS(idx.save("   ", "fact"), "text is empty",
                       std::invalid_argument);
  CHECK_THROWS_AS(idx.save("x", "feelings"), std::invalid_argument);
  CHECK_THROWS_AS(idx.save(std::string(5000, 'a'), "fact"),
                  std::invalid_argument);
}

TEST_CASE("search falls back to full text when the embeddings server is down") {
  test::scratch_dir ws;
  auto emb = std::make_unique<test::fake_embeddings>();
  write(ws.at("memory/MEMORY.md"), "- Standup is at 9:30 on weekdays\n");
  auto opts = options_for(ws.path, emb.get());
  emb.reset(); // nobody listens there any more
  index_core idx{opts};
  idx.sync();
  CHECK_FALSE(idx.embed_batch()); // the call fails: reported, not thrown
  auto hits = idx.search(index_query(ws.path, "when is standup"));
  REQUIRE(hits.hits.size() == 1);
  CHECK(hits.mode == "full-text");
  CHECK(hits.note.find("unreachable") != std::string::npos);
  auto f = idx.figures();
  CHECK(f.mode == "full-text");
  CHECK(f.embed_failures >= 1);
  CHECK_FALSE(idx.embed_batch()); // resting: no new call for a while
}

TEST_CASE("wrong dimensions NaNs and HTTP errors are reported and full text goes on") {
  test::scratch_dir ws;
  test::fake_embeddings emb;
  write(ws.at("memory/MEMORY.md"), "- The VPN needs the hardware token\n");
  SUBCASE("wrong dimensions") {
    emb.answer_dims(8);
    index_core idx{options_for(ws.path, &emb)};
    idx.sync();
    CHECK_FALSE(idx.embed_batch());
    CHECK(idx.figures().note.find("8 dimensions, expected 64")
          != std::string::npos);
    CHECK(idx.search(index_query(ws.path, "vpn token")).hits.size() == 1);
  }
  SUBCASE("NaN in the answer") {
    emb.fail_with(200, R"({"data":[{"index":0,"embedding":[NaN, 1]}]})");
    index_core idx{options_for(ws.path, &emb)};
    idx.sync();
    CHECK_FALSE(idx.embed_batch());
    CHECK(idx.figures().note.find("NaN") != std::string::npos);
    CHECK(idx.search(index_query(ws.path, "vpn")).hits.size() == 1);
  }
  SUBCASE("server error") {
    emb.fail_with(500, R"({"error":{"message":"model not loaded"}})");
    index_core idx{options_for(ws.path, &emb)};
    idx.sync();
    CHECK_FALSE(idx.embed_batch());
    CHECK(idx.figures().note.find("HTTP 500: model not loaded")
          != std::string::npos);
    CHECK(idx.search(index_query(ws.path, "hardware token")).hits.size() == 1);
  }
}

TEST_CASE("deleting the index file loses nothing") {
  test::scratch_dir ws;
  {
    index_core idx{options_for(ws.path)};
    idx.save("The router password is on the fridge", "fact");
    CHECK(std::filesystem::exists(ws.at("memory/index.sqlite")));
  }
  for (auto* f : {"index.sqlite", "index.sqlite-wal", "index.sqlite-shm"})
    std::filesystem::remove(ws.at(std::string{"memory/"} + f));
  index_core idx{options_for(ws.path)};
  auto hits = idx.search(index_query(ws.path, "router password"));
  REQUIRE(hits.hits.size() == 1);
  CHECK(hits.hits[0].text == "The router password is on the fridge");
}

TEST_CASE("a corrupt index file is moved aside and rebuilt from the files") {
  test::scratch_dir ws;
  write(ws.at("memory/MEMORY.md"), "- Dentist on Friday\n");
  write(ws.at("memory/index.sqlite"), std::string(8192, 'x'));
  index_core idx{options_for(ws.path)};
  CHECK(idx.search(index_query(ws.path, "dentist")).hits.size() == 1);
  bool moved = false;
  for (auto& e : std::filesystem::directory_iterator(ws.at("memory")))
    moved = moved
            || e.path().filename().string().starts_with("index.sqlite.corrupt-");
  CHECK(moved);
}

TEST_CASE("edits reach the index: a deleted line leaves it") {
  test::scratch_dir ws;
  write(ws.at("memory/MEMORY.md"), "- Flight to Oslo on May 3\n- Gym on Mondays\n");
  index_core idx{options_for(ws.path)};
  CHECK(idx.search(index_query(ws.path, "oslo")).hits.size() == 1);
  write(ws.at("memory/MEMORY.md"), "- Gym on Mondays\n");
  CHECK(idx.search(index_query(ws.path, "oslo")).hits.empty());
  auto gym = idx.search(index_query(ws.path, "gym"));
  REQUIRE(gym.hits.size() == 1);
  CHECK(gym.hits[0].line_start == 1);
  std::filesystem::remove(ws.at("memory/MEMORY.md"));
  CHECK(idx.search(index_query(ws.path, "gym")).hits.empty());
  CHECK(idx.figures().chunks == 0);
}

TEST_CASE("a growing history.jsonl adds only its new entries") {
  // The chunks of history.jsonl were stored under another source name than
  // the one they were looked up by, so every append indexed the whole file
  // again (a soak grew the index to 256 000 chunks and 380 MB).
  test::scratch_dir ws;
  std::string history;
  index_core idx{options_for(ws.path)};
  for (int i = 1; i <= 5; ++i) {
    history += R"({"cursor":)" + std::to_string(i)
               + R"(,"timestamp":"2026-11-02 10:30","content":"- Entry number )"
               + std::to_string(i) + R"("})" + "\n";
    write(ws.at("memory/history.jsonl"), history);
    CHECK(idx.search(index_query(ws.path, "entry")).hits.size() >= 1);
    CHECK(idx.figures().chunks == i);
  }
}

TEST_CASE("ranking puts fresh facts before faded ones and spares the profile") {
  test::scratch_dir ws;
  write(ws.at("memory/history.jsonl"),
        R"({"cursor":1,"timestamp":"2024-01-10 10:00","content":"- Project Falcon budget was cut\n- [profile] Project Falcon is the user's pet project"})"
        "\n"
        R"({"cursor":2,"timestamp":")" + local_date(std::time(nullptr))
          + R"( 09:00","content":"- Project Falcon ships next week"})" "\n");
  index_core idx{options_for(ws.path)};
  auto hits = idx.search(index_query(ws.path, "project falcon"));
  REQUIRE(hits.hits.size() == 3);
  CHECK(hits.hits[0].text != "Project Falcon budget was cut");
  CHECK(hits.hits[2].text == "Project Falcon budget was cut");
  CHECK(hits.hits[2].score < hits.hits[0].score / 4);
}

TEST_CASE("recall keeps to the score floor and the character budget") {
  test::scratch_dir ws;
  std::string text;
  for (int i = 0; i < 20; ++i)
    text += "- Invoice " + std::to_string(i) + " for the garden project "
            + std::string(100, 'x') + "\n";
  write(ws.at("memory/MEMORY.md"), text);
  auto opts = options_for(ws.path);
  opts.settings.recall_budget_chars = 300;
  index_core idx{opts};
  auto q = index_query(ws.path, "garden invoice", 10);
  q.recall = true;
  auto hits = idx.search(q);
  size_t total = 0;
  for (auto& h : hits.hits)
    total += h.text.size();
  CHECK_FALSE(hits.hits.empty());
  CHECK(total <= 300);
  q.query = "zebra";
  CHECK(idx.search(q).hits.empty());
}

TEST_CASE("forget removes the line from MEMORY.md and the index") {
  test::scratch_dir ws;
  index_core idx{options_for(ws.path)};
  idx.save("Old phone number is 555-0100", "fact");
  idx.save("Likes hiking", "profile");
  auto hits = idx.search(index_query(ws.path, "phone number"));
  REQUIRE(hits.hits.size() == 1);
  auto r = idx.forget(hits.hits[0].id);
  CHECK(r.find("Forgot #") == 0);
  auto text = test::read_all(ws.at("memory/MEMORY.md"));
  CHECK(text.find("555-0100") == std::string::npos);
  CHECK(text.find("Likes hiking") != std::string::npos);
  CHECK(idx.search(index_query(ws.path, "phone number")).hits.empty());
  CHECK(idx.forget(999999).find("No memory #999999") == 0);
}

TEST_CASE("vectors are computed in batches and a known text comes from the cache") {
  test::scratch_dir ws;
  test::fake_embeddings emb;
  std::string text;
  for (int i = 0; i < 150; ++i)
    text += "- note number " + std::to_string(i) + "\n";
  write(ws.at("memory/MEMORY.md"), text);
  index_core idx{options_for(ws.path, &emb, 64)};
  idx.sync();
  embed_all(idx);
  CHECK(emb.batch_sizes() == std::vector<size_t>{64, 64, 22});
  CHECK(idx.figures().embedded == 150);
  auto calls = emb.calls();
  write(ws.at("memory/copy.md"), "- note number 7\n");
  idx.sync();
  CHECK_FALSE(idx.embed_batch());
  CHECK(emb.calls() == calls);
  CHECK(idx.figures().cache_hits >= 1);
}

TEST_CASE("a turn's recall ranks only the newest matches; search ranks all") {
  // Ranking costs per match, so the automatic recall looks at the newest
  // recall_newest_matches chunks with the user's words and its cost stops
  // growing with the index; memory_search still ranks every match.
  test::scratch_dir ws;
  auto today = local_date(std::time(nullptr));
  auto entry = [&](int cursor, const std::string& text) {
    return R"({"cursor":)" + std::to_string(cursor) + R"(,"timestamp":")"
           + today + R"( 09:00","content":"- )" + text + "\"}\n";
  };
  std::string history = entry(1, "lantern lantern lantern in the attic");
  int cursor = 1;
  auto add_plain = [&](int n) {
    for (int i = 0; i < n; ++i, ++cursor)
      history += entry(cursor + 1, "note " + std::to_string(cursor)
                                     + " says a lantern was seen among the "
                                       "boxes, crates and old furniture");
    write(ws.at("memory/history.jsonl"), history);
  };
  add_plain(60);
  index_core idx{options_for(ws.path)};
  auto recall = index_query(ws.path, "lantern", 1);
  recall.recall = true;
  auto best = "lantern lantern lantern in the attic";
  auto first = idx.search(recall);
  REQUIRE(first.hits.size() >= 1);
  CHECK(first.hits[0].text == best); // within the newest: ranked first
  add_plain(60);
  auto later = idx.search(recall);
  REQUIRE(later.hits.size() >= 1);
  for (auto& h : later.hits)
    CHECK(h.text != best); // 120 newer matches: past the recall's window
  auto search = idx.search(index_query(ws.path, "lantern", 1));
  REQUIRE(search.hits.size() == 1);
  CHECK(search.hits[0].text == best);
}
