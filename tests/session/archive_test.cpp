// The pure half of archiving: where replay starts after an archive, where
// to cut, the archive text, and what is kept of the model's summary.
#include <doctest/doctest.h>

#include "actors/runner/context_governor.hpp"
#include "actors/session/archive.hpp"

using nlohmann::json;

namespace {

json msg(const char* role, std::string text) {
  return {{"role", role}, {"content", std::move(text)},
          {"timestamp", "2026-03-04T05:06:07.890Z"}};
}

/// user/assistant pairs: u0 a0 u1 a1 ...
nb::transcript_entries pairs(int n, size_t size = 10) {
  nb::transcript_entries out;
  for (int i = 0; i < n; ++i) {
    out.push_back(msg("user", "u" + std::to_string(i) + std::string(size, '.')));
    out.push_back(msg("assistant", "a" + std::to_string(i)));
  }
  return out;
}

} // namespace

TEST_CASE("replay starts after the archive but keeps eight messages") {
  auto t = pairs(10); // 20 messages
  CHECK(nb::replay_start(t, 0) == 0);
  CHECK(nb::replay_start(t, 4) == 4);
  // Too few left after the mark: back to 8 messages, at a user message.
  CHECK(nb::replay_start(t, 18) == 12);
  CHECK(nb::replay_start(t, 15) == 12);
  CHECK(nb::replay_start(t, 99) == 12); // a mark past the end
  CHECK(nb::replay_start(pairs(2), 3) == 0);
}

TEST_CASE("the replay's estimate follows appends, a moving start, drops and /new") {
  // What a full recount gives: the reference for every step below.
  auto recount = [](const nb::transcript_entries& t, size_t start) {
    int64_t sum = 0;
    for (size_t i = start; i < t.size(); ++i)
      sum += nb::estimate_message_tokens(t[i]);
    return sum;
  };
  auto t = pairs(10, 40);
  nb::replay_estimate e;
  CHECK(nb::replay_tokens(e, t, 0, 0, 0) == recount(t, 0));
  // Two messages appended: only they are counted now.
  for (auto& m : pairs(1, 300))
    t.push_back(m);
  CHECK(nb::replay_tokens(e, t, 0, 0, 0) == recount(t, 0));
  CHECK(e.upto == t.size());
  // The start moves forward (an archive): the messages it passed go.
  CHECK(nb::replay_tokens(e, t, 0, 6, 0) == recount(t, 6));
  // The first 4 messages are dropped from memory (base 4): same sum.
  nb::transcript_entries held(t.begin() + 4, t.end());
  CHECK(nb::replay_tokens(e, held, 4, 2, 0) == recount(held, 2));
  // The start moves back (a mark read anew): counted again from there.
  CHECK(nb::replay_tokens(e, held, 4, 0, 0) == recount(held, 0));
  // /new: another generation with as many messages, other contents.
  auto fresh = pairs(9, 500);
  fresh.resize(held.size(), msg("user", "x"));
  CHECK(nb::replay_tokens(e, fresh, 0, 0, 1) == recount(fresh, 0));
  // Cleared within the same generation (the file emptied): recounted.
  nb::transcript_entries one{msg("user", "again")};
  CHECK(nb::replay_tokens(e, one, 0, 0, 1) == recount(one, 0));
}

TEST_CASE("the archive boundary is a user message past the excess") {
  auto t = pairs(6, 400); // each pair ~ 110 tokens
  auto cut = nb::archive_boundary(t, 0, 200);
  REQUIRE(cut);
  CHECK(t[*cut].message()["role"] == "user");
  CHECK(*cut >= 2);
  auto cut2 = nb::archive_boundary(t, 0, 1000000);
  REQUIRE(cut2);
  CHECK(*cut2 == 10); // the last user message: never the whole tail
  CHECK_FALSE(nb::archive_boundary({msg("user", "only")}, 0, 10));
}

TEST_CASE("archive text names roles and tools and leaves commands out") {
  auto help = msg("user", "/help");
  help["_command"] = true;
  nb::transcript_entries t{msg("user", "list files"),
                           json{{"role", "assistant"}, {"content", nullptr},
                                {"tool_calls", json::array({{{"id", "c1"},
                                  {"function", {{"name", "exec"}, {"arguments", "{}"}}}}})}},
                           msg("tool", "a.txt"), msg("assistant", "one file"),
                           help};
  auto text = nb::format_for_archive(t, 0, t.size());
  CHECK(text == "[2026-03-04 05:06] USER: list files\n"
                "ASSISTANT [tools: exec]\n"
                "[2026-03-04 05:06] TOOL: a.txt\n"
                "[2026-03-04 05:06] ASSISTANT: one file\n");
  auto raw = nb::raw_archive(std::string(20000, 'x'), 4);
  CHECK(raw.rfind("[RAW] 4 messages\n", 0) == 0);
  CHECK(raw.size() < 16100);
  CHECK(nb::archive_prompt(text).find("<conversation>\n" + text
                                      + "</conversation>")
        != std::string::npos);
}

TEST_CASE("summaries lose think blocks and are capped on a character") {
  CHECK(nb::clean_summary("<think>hmm</think>\n- a fact\n") == "- a fact");
  CHECK(nb::clean_summary("  \n<think>only thoughts") == "");
  CHECK(nb::clean_summary("   ") == "");
  // A two-byte character across the cap is left out whole.
  std::string long_text = "- " + std::string(7997, 'x') + "\xC3\xA9 tail";
  CHECK(nb::clean_summary(long_text).size() == 7999);
  CHECK(nb::permanent_facts("- a\n  - [permanent] likes tea\n- [permanent]\n"
                            "- [permanent]   owns a boat  ")
        == std::vector<std::string>{"likes tea", "owns a boat  "});
  CHECK(nb::permanent_facts("- [profile] Name is Ada\n- [profile]  \n"
                            "- [experience] rsync -z helps\n- plain")
        == std::vector<std::string>{"[profile] Name is Ada"});
}
