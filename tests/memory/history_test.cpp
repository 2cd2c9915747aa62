// memory/history.jsonl: cursors, invalid lines, the legacy HISTORY.md and
// the prompt's recent-history section, on real files.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "actors/memory/dream.hpp"
#include "actors/memory/history_file.hpp"
#include "actors/memory/history_tail.hpp"

namespace fs = std::filesystem;

namespace {

struct temp_ws {
  temp_ws() {
    char tmpl[] = "/tmp/nb-history-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~temp_ws() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string dir;
};

} // namespace

TEST_CASE("entries get increasing cursors and bad lines are skipped") {
  temp_ws ws;
  std::string err;
  auto a = nb::append_history(ws.dir, "first summary", "telegram:1", err);
  REQUIRE(a);
  CHECK(a->cursor == 1);
  {
    std::ofstream out{ws.dir + "/memory/history.jsonl", std::ios::app};
    out << "not json\n{\"content\":\"no cursor\"}\n";
  }
  auto b = nb::append_history(ws.dir, "second", "", err);
  REQUIRE(b);
  CHECK(b->cursor == 2);
  int skipped = 0;
  auto all = nb::read_history(ws.dir, &skipped);
  REQUIRE(all.size() == 2);
  CHECK(skipped == 2);
  CHECK(all[0].session_key == "telegram:1");
  CHECK(all[0].timestamp.size() == 16);
  CHECK(all[1].content == "second");
}

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in{path};
  return {std::istreambuf_iterator<char>{in}, {}};
}

} // namespace

TEST_CASE("the original's memory/.cursor counter is kept and honoured") {
  temp_ws ws;
  std::string err;
  // The original wrote entries up to cursor 7 and compacted the old ones
  // away: its counter remembers 7, so the next cursor is 8, never reused.
  fs::create_directories(ws.dir + "/memory");
  std::ofstream{ws.dir + "/memory/history.jsonl"}
    << R"({"cursor": 6, "timestamp": "2026-11-30 09:00", "content": "six"})"
    << "\n";
  std::ofstream{ws.dir + "/memory/.cursor"} << "7";
  CHECK(nb::latest_history_cursor(ws.dir) == 7);
  auto e = nb::append_history(ws.dir, "eight", "", err);
  REQUIRE(e);
  CHECK(e->cursor == 8);
  // Written as the original writes it: the bare number.
  CHECK(read_text(ws.dir + "/memory/.cursor") == "8");
  // A counter the original could not read is ignored as it ignores it.
  std::ofstream{ws.dir + "/memory/.cursor"} << "-3";
  CHECK(nb::latest_history_cursor(ws.dir) == 8);
}

TEST_CASE("with Dream off its cursor skips the backlog, as the original's start does") {
  temp_ws ws;
  std::string err;
  for (auto* text : {"one", "two", "three"})
    REQUIRE(nb::append_history(ws.dir, text, "", err));
  std::ofstream{ws.dir + "/memory/.dream_cursor"} << "1";
  CHECK(nb::skip_dream_backlog(ws.dir).empty());
  CHECK(nb::read_dream_cursor(ws.dir) == 3);
  CHECK(read_text(ws.dir + "/memory/.dream_cursor") == "3");
  // Never moved back.
  std::ofstream{ws.dir + "/memory/.dream_cursor"} << "9";
  CHECK(nb::skip_dream_backlog(ws.dir).empty());
  CHECK(nb::read_dream_cursor(ws.dir) == 9);
}

TEST_CASE("a legacy HISTORY.md is moved into history.jsonl once") {
  temp_ws ws;
  fs::create_directories(ws.dir + "/memory");
  std::ofstream{ws.dir + "/memory/HISTORY.md"}
    << "[2025-01-01 10:00] Met Bob.\n\n[2025-01-02 11:00] Planned a trip\nto Rome.\n";
  std::string err;
  CHECK(nb::migrate_legacy_history(ws.dir, err) == 2);
  CHECK(err.empty());
  CHECK_FALSE(fs::exists(ws.dir + "/memory/HISTORY.md"));
  CHECK(fs::exists(ws.dir + "/memory/HISTORY.md.bak"));
  auto all = nb::read_history(ws.dir);
  REQUIRE(all.size() == 2);
  CHECK(all[1].content == "[2025-01-02 11:00] Planned a trip\nto Rome.");
  CHECK(nb::migrate_legacy_history(ws.dir, err) == 0);
  CHECK(nb::read_history(ws.dir).size() == 2);
}

TEST_CASE("recent history keeps this session's newest entries within a cap") {
  std::vector<nb::history_entry> all;
  for (int i = 0; i < 80; ++i)
    all.push_back({i, "2026-01-01 10:00", "entry " + std::to_string(i),
                   i % 2 ? "a" : "b"});
  auto s = nb::recent_history_section(all, "a", 50, 100000, "entry 79");
  CHECK(s.rfind("# Recent History\n- [2026-01-01 10:00] entry", 0) == 0);
  CHECK(s.find("entry 77") != std::string::npos);
  CHECK(s.find("entry 79") == std::string::npos); // same as the summary
  CHECK(s.find("entry 78") == std::string::npos); // other session
  CHECK(s.find("entry 1\n") != std::string::npos);
  CHECK(s.find("entry 77") > s.find("entry 75")); // oldest first
  auto capped = nb::recent_history_section(all, "a", 50, 120, "");
  CHECK(capped.find("entry 79") != std::string::npos);
  CHECK(capped.find("entry 71") == std::string::npos);
  CHECK(nb::recent_history_section(all, "zzz", 50, 1000, "").empty());
}

TEST_CASE("the prompt's history is the file's tail, read from its end") {
  temp_ws ws;
  fs::create_directories(ws.dir + "/memory");
  {
    std::ofstream out{ws.dir + "/memory/history.jsonl"};
    for (int i = 1; i <= 3000; ++i)
      out << R"({"cursor":)" << i << R"(,"timestamp":"2026-11-30 10:00",)"
          << R"("content":"summary )" << i << R"(","session_key":"api:k)"
          << i % 3 << "\"}\n";
    out << "not json\n";
  }
  auto tail = nb::read_history_tail(ws.dir, 1000);
  REQUIRE(tail.size() == 1000);
  CHECK(tail.front().cursor == 2001);
  CHECK(tail.back().cursor == 3000);
  // A small byte budget gives fewer, still whole, entries: the newest.
  auto little = nb::read_history_tail(ws.dir, 1000, 4096);
  REQUIRE_FALSE(little.empty());
  CHECK(little.size() < 1000);
  CHECK(little.back().cursor == 3000);
  CHECK(little.front().cursor == 3001 - static_cast<int>(little.size()));
  // The prompt section of a recent chat is the same as from the whole file.
  auto all = nb::read_history(ws.dir);
  CHECK(nb::recent_history_section(tail, "api:k1", 50, 32000, "")
        == nb::recent_history_section(all, "api:k1", 50, 32000, ""));
  CHECK(nb::read_history_tail(ws.dir + "/none", 10).empty());
}
