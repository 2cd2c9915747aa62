// The history file's sync in windows: a real SQLite index over a
// history.jsonl of thousands of entries. Each window holds a bounded number
// of lines, and the stored chunks are exactly those of chunking the whole
// file at once, keys (and their numbering of identical pieces) included.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "actors/memory_index/index_core.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::memory;

namespace {

constexpr const char* history_rel = "memory/history.jsonl";

std::string entry_line(int cursor, const std::string& content) {
  return nlohmann::json{
           {"cursor", cursor},
           {"timestamp", "2026-11-30 10:00"},
           {"content", content},
           {"session_key", "api:sync-" + std::to_string(cursor % 7)}}
           .dump()
         + "\n";
}

/// `count` entries from `first`: most distinct, every tenth the same text
/// (identical pieces are numbered across the whole file).
std::string entries(int first, int count) {
  std::string out;
  for (int i = first; i < first + count; ++i)
    out += entry_line(i, i % 10 == 0
                           ? "- The user sent soak messages."
                           : "- Fact number " + std::to_string(i)
                               + " about the sync window\n- and its second "
                                 "line "
                               + std::to_string(i));
  return out;
}

void write_history(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(
    std::filesystem::path(path).parent_path());
  std::ofstream{path, std::ios::binary | std::ios::trunc} << text;
}

using chunk_id = std::tuple<std::string, int32_t>; // key, first line

std::set<chunk_id> expected(const std::string& text) {
  std::set<chunk_id> out;
  for (auto& c : chunk_history(text, history_rel))
    out.emplace(c.key, c.line_start);
  return out;
}

std::set<chunk_id> stored(const index_core& idx) {
  index_db db{idx.db_path()};
  std::set<chunk_id> out;
  for (auto& c : db.chunks_of(history_rel))
    out.emplace(c.key, c.line_start);
  return out;
}

index_options window_options(const std::string& ws) {
  index_options o;
  o.workspace = ws;
  o.embed_problem = "no embeddings provider configured";
  return o;
}

} // namespace

TEST_CASE("a history of thousands of entries is synced in bounded windows") {
  test::scratch_dir ws;
  auto text = entries(1, 5000);
  write_history(ws.at(history_rel), text);
  index_core idx{window_options(ws.path)};
  CHECK(idx.sync());
  auto& s = idx.last_sync();
  CHECK(s.windows >= 5000 / sync_window_lines);
  CHECK(s.most_lines <= sync_window_lines);
  CHECK(s.most_lines > 0);
  // Two chunks per entry at most: a window never holds the file's.
  CHECK(s.most_chunks <= 2 * sync_window_lines);
  auto want = expected(text);
  CHECK(want.size() > 9000);
  CHECK(stored(idx) == want);
  CHECK(idx.figures().chunks == static_cast<int64_t>(want.size()));
  // The first and the last entry are found.
  memory_query q;
  q.workspace = ws.path;
  q.k = 3;
  q.query = "Fact number 1 about the sync window";
  CHECK_FALSE(idx.search(q).hits.empty());
  q.query = "second line 4999";
  auto last = idx.search(q);
  REQUIRE_FALSE(last.hits.empty());
  CHECK(last.hits[0].text.find("4999") != std::string::npos);
}

TEST_CASE("appending to the history adds only the new chunks") {
  test::scratch_dir ws;
  auto text = entries(1, 3000);
  write_history(ws.at(history_rel), text);
  index_core idx{window_options(ws.path)};
  idx.sync();
  auto before = idx.figures();
  text += entries(3001, 300);
  write_history(ws.at(history_rel), text);
  CHECK(idx.sync());
  auto after = idx.figures();
  auto grown = expected(text);
  CHECK(stored(idx) == grown);
  CHECK(after.added - before.added
        == static_cast<int64_t>(grown.size()) - before.chunks);
  CHECK(after.removed == before.removed);
}

TEST_CASE("a history that loses lines keeps its index in step") {
  test::scratch_dir ws;
  auto text = entries(1, 2000);
  write_history(ws.at(history_rel), text);
  index_core idx{window_options(ws.path)};
  idx.sync();
  // A forgotten entry near the start moves every later line up by one
  // (across every window boundary), and the file ends earlier.
  std::string shorter;
  std::istringstream in{text};
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (++n != 12 && n <= 1500)
      shorter += line + "\n";
  write_history(ws.at(history_rel), shorter);
  CHECK(idx.sync());
  CHECK(stored(idx) == expected(shorter));
  CHECK(idx.figures().chunks == static_cast<int64_t>(expected(shorter).size()));
  // The file gone: its chunks go too.
  std::filesystem::remove(ws.at(history_rel));
  idx.sync();
  CHECK(stored(idx).empty());
}
