// Memory files → chunks: bullets, paragraphs, categories, tags, windows.
#include <doctest/doctest.h>

#include "actors/memory_index/chunker.hpp"
#include "config/memory_config.hpp"

using namespace nb::memory;

TEST_CASE("markdown bullets and paragraphs become chunks with their lines") {
  auto chunks = chunk_markdown("memory/MEMORY.md",
                               "# Long-term Memory\n"
                               "\n"
                               "## About the user\n"
                               "- Name is Ada\n"
                               "- Likes green tea\n"
                               "  and oolong\n"
                               "\n"
                               "## Notes\n"
                               "The server moved to Frankfurt.\n"
                               "It runs Debian.\n"
                               "- [experience] rsync needs -z over slow links\n"
                               "- [permanent] [profile] Allergic to nuts\n");
  REQUIRE(chunks.size() == 5);
  CHECK(chunks[0].text == "Name is Ada");
  CHECK(chunks[0].category == "profile");
  CHECK(chunks[0].line_start == 4);
  CHECK(chunks[1].text == "Likes green tea\nand oolong");
  CHECK(chunks[1].line_start == 5);
  CHECK(chunks[1].line_end == 6);
  CHECK(chunks[2].category == "fact");
  CHECK(chunks[2].line_start == 9);
  CHECK(chunks[2].line_end == 10);
  CHECK(chunks[3].category == "experience");
  CHECK(chunks[3].text == "rsync needs -z over slow links");
  CHECK(chunks[4].permanent);
  CHECK(chunks[4].category == "profile");
  CHECK(chunks[4].text == "Allergic to nuts");
  CHECK(chunks[4].importance >= 0.8);
}

TEST_CASE("identical lines get distinct keys and a moved line keeps its key") {
  auto a = chunk_markdown("m.md", "- same\n- other\n- same\n");
  REQUIRE(a.size() == 3);
  CHECK(a[0].key != a[2].key);
  auto b = chunk_markdown("m.md", "- new first\n\n- other\n");
  CHECK(b[1].key == a[1].key);
  CHECK(b[1].line_start == 3);
}

TEST_CASE("long text is cut into overlapping windows of about 400 tokens") {
  std::string para;
  for (int i = 0; i < 1000; ++i)
    para += "word" + std::to_string(i) + " ";
  auto chunks = chunk_markdown("m.md", para);
  REQUIRE(chunks.size() >= 4);
  for (auto& c : chunks)
    CHECK(c.text.size() <= chunk_window_bytes);
  // Overlap: the start of each window repeats the end of the one before.
  auto tail = chunks[0].text.substr(chunks[0].text.size() - 40);
  CHECK(chunks[1].text.find(tail.substr(tail.find(' ') + 1)) !=
        std::string::npos);
}

TEST_CASE("a huge file is capped at max_chunks_per_file") {
  std::string text;
  for (size_t i = 0; i < max_chunks_per_file + 500; ++i)
    text += "- fact " + std::to_string(i) + "\n";
  CHECK(chunk_markdown("m.md", text).size() == max_chunks_per_file);
}

TEST_CASE("history entries are chunked by line with their timestamp") {
  auto chunks = chunk_history(
    R"({"cursor":1,"timestamp":"2026-11-02 10:30","content":"- [profile] Prefers short answers\n- Booked a flight to Oslo"})"
    "\nnot json\n"
    R"({"cursor":2,"timestamp":"2026-11-03 09:00","content":"[RAW] 2 messages\nUSER: hi"})"
    "\n",
    "memory/history.jsonl");
  REQUIRE(chunks.size() == 3);
  CHECK(chunks[0].source == "memory/history.jsonl");
  CHECK(chunks[0].category == "profile");
  CHECK(chunks[0].line_start == 1);
  CHECK(chunks[1].text == "Booked a flight to Oslo");
  CHECK(chunks[1].created == parse_local_time("2026-11-02 10:30"));
  CHECK(chunks[2].line_start == 3);
  CHECK(local_date(chunks[2].created) == "2026-11-03");
}

TEST_CASE("without_piece removes exactly the piece of a chunk") {
  std::string text = "# T\n- keep me\n- [profile] drop me\n  too\n- keep\n";
  auto out = without_piece(text, "drop me\ntoo");
  REQUIRE(out);
  CHECK(*out == "# T\n- keep me\n- keep\n");
  CHECK_FALSE(without_piece(text, "not there"));
}

TEST_CASE("normalised text ignores case spacing and final punctuation") {
  CHECK(normalize_text("  Likes  Green tea. ") == "likes green tea");
  CHECK(normalize_text("likes green TEA!") == "likes green tea");
}

TEST_CASE("the memory config names bad keys and values") {
  auto none = [](const std::string&) -> std::optional<std::string> {
    return std::nullopt;
  };
  auto ok = nb::parse_memory_config(
    R"({"agents":{"defaults":{"memory":{"recalK":3,"halfLifeDays":7,)"
    R"("embeddings":{"provider":"emb","model":"m","batch_size":8}}}}})",
    none);
  auto* s = std::get_if<nb::memory_settings>(&ok);
  REQUIRE(s);
  CHECK(s->half_life_days == 7);
  CHECK(s->embeddings.batch_size == 8);
  REQUIRE(s->warnings.size() == 1);
  CHECK(s->warnings[0].find("agents.defaults.memory.recalK") != std::string::npos);
  INFO(s->warnings[0]);
  CHECK(s->warnings[0].find("(did you mean agents.defaults.memory.recall")
        != std::string::npos);
  auto bad = nb::parse_memory_config(
    R"({"agents":{"defaults":{"memory":{"recallK":"five"}}}})", none);
  auto* err = std::get_if<nb::config_error>(&bad);
  REQUIRE(err);
  CHECK(err->message().find("agents.defaults.memory.recallK")
        != std::string::npos);
  auto no_model = nb::parse_memory_config(
    R"({"agents":{"defaults":{"memory":{"embeddings":{"provider":"x"}}}}})",
    none);
  CHECK(std::holds_alternative<nb::config_error>(no_model));
}
