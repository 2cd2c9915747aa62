// The context governor: repairs and budgets the model-facing copy.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>

#include "actors/runner/context_governor.hpp"

namespace {

using json = nlohmann::json;
using nb::governor_limits;
using nb::govern_messages;

const governor_limits big{1000000, 1000, 16000};

json sys(std::string t) { return {{"role", "system"}, {"content", t}}; }
json user(std::string t) { return {{"role", "user"}, {"content", t}}; }
json asst(std::string t) { return {{"role", "assistant"}, {"content", t}}; }
json call(json id, json name) {
  return {{"id", id}, {"type", "function"},
          {"function", {{"name", name}, {"arguments", "{}"}}}};
}
json asst_calls(json calls, json content = nullptr) {
  return {{"role", "assistant"}, {"content", content}, {"tool_calls", calls}};
}
json result(json id, std::string content, std::string name = "exec") {
  return {{"role", "tool"}, {"tool_call_id", id}, {"name", name},
          {"content", content}};
}

std::vector<std::string> roles(const json& msgs) {
  std::vector<std::string> out;
  for (auto& m : msgs)
    out.push_back(m.value("role", "?"));
  return out;
}

std::string role_of(const json& m) {
  return m.contains("role") && m["role"].is_string() ? m["role"].get<std::string>() : "";
}

/// Checks the pairing invariants; returns a failure text or "".
std::string pairing_problem(const json& out) {
  std::set<std::string> declared;
  for (size_t i = 0; i < out.size(); ++i) {
    auto& m = out[i];
    if (role_of(m) != "assistant" || !m.contains("tool_calls"))
      continue;
    std::multiset<std::string> want, got;
    for (auto& c : m["tool_calls"]) {
      if (!c["function"]["name"].is_string()
          || c["function"]["name"].get<std::string>().empty())
        return "bad name survived";
      auto id = c["id"].get<std::string>();
      if (!declared.insert(id).second)
        return "duplicate call id " + id;
      want.insert(id);
    }
    size_t j = i + 1;
    for (; j < out.size() && role_of(out[j]) == "tool"; ++j)
      got.insert(out[j].value("tool_call_id", ""));
    if (want != got)
      return "group after message " + std::to_string(i) + " does not match";
  }
  // Every tool message sits in the group right after an assistant message.
  for (size_t i = 0; i < out.size(); ++i) {
    if (role_of(out[i]) != "tool")
      continue;
    size_t j = i;
    while (j > 0 && role_of(out[j - 1]) == "tool")
      --j;
    if (j == 0 || role_of(out[j - 1]) != "assistant")
      return "tool result without its call at " + std::to_string(i);
  }
  return "";
}

} // namespace

TEST_CASE("governor drops placeholder assistant replies") {
  json in = json::array({user("hi"), asst("[Assistant reply unavailable due to model error.]"),
                         user("again"), asst("ok")});
  auto out = govern_messages(in, big);
  CHECK(roles(out) == std::vector<std::string>{"user", "user", "assistant"});
}

TEST_CASE("governor removes a tool call with a null name and its result") {
  json in = json::array({sys("s"), user("do it"),
                         asst_calls(json::array({call("a", nullptr)})),
                         result("a", "done"), asst("finished")});
  auto out = govern_messages(in, big);
  CHECK(out.dump().find("\"name\":null") == std::string::npos);
  CHECK(roles(out) == std::vector<std::string>{"system", "user", "assistant"});
  CHECK(out[2]["content"] == "finished");
}

TEST_CASE("governor keeps valid calls next to malformed ones") {
  json in = json::array({user("x"),
                         asst_calls(json::array({call("a", ""), call("b", 7),
                                                 call("c", "exec")}), "text"),
                         result("a", "1"), result("b", "2"), result("c", "3")});
  auto out = govern_messages(in, big);
  REQUIRE(out.size() == 3);
  CHECK(out[1]["tool_calls"].size() == 1);
  CHECK(out[2]["tool_call_id"] == "c");
}

TEST_CASE("governor drops orphan and duplicate tool results") {
  json in = json::array({user("x"), result("zz", "orphan"),
                         asst_calls(json::array({call("a", "exec")})),
                         result("a", "first"), result("a", "again"),
                         result("nope", "stray"), asst("end")});
  auto out = govern_messages(in, big);
  CHECK(roles(out) == std::vector<std::string>{"user", "assistant", "tool", "assistant"});
  CHECK(out[2]["content"] == "first");
}

TEST_CASE("governor backfills a missing result right after its group") {
  json in = json::array({user("x"),
                         asst_calls(json::array({call("a", "exec"), call("b", "grep")})),
                         result("a", "one"), user("next")});
  auto out = govern_messages(in, big);
  REQUIRE(out.size() == 5);
  CHECK(out[3]["role"] == "tool");
  CHECK(out[3]["tool_call_id"] == "b");
  CHECK(out[3]["name"] == "grep");
  CHECK(out[4]["role"] == "user");
  CHECK(pairing_problem(out).empty());
}

TEST_CASE("governor truncates oversized tool results") {
  governor_limits lim = big;
  lim.max_tool_result_chars = 100;
  json in = json::array({user("x"), asst_calls(json::array({call("a", "exec")})),
                         result("a", std::string(500, 'r'))});
  auto out = govern_messages(in, lim);
  auto text = out[2]["content"].get<std::string>();
  CHECK(text == std::string(100, 'r') + "\n... (truncated)");
}

TEST_CASE("governor compacts large results of the current run first") {
  governor_limits lim{15000, 1000, 16000}; // budget 12 976 tokens
  json in = json::array({sys("s"), user("old"),
                         asst_calls(json::array({call("o", "exec")})),
                         result("o", std::string(15000, 'o')), asst("old done"),
                         user("now"),
                         asst_calls(json::array({call("a", "exec")})),
                         result("a", std::string(15000, 'a')),
                         asst_calls(json::array({call("b", "exec")})),
                         result("b", std::string(15000, 'b')),
                         asst_calls(json::array({call("c", "exec")})),
                         result("c", std::string(15000, 'c'))});
  CHECK(nb::estimate_tokens(in) > nb::input_budget(lim));
  auto out = govern_messages(in, lim);
  CHECK(out.size() == in.size());
  CHECK(out[3]["content"] == in[3]["content"]); // earlier run untouched
  CHECK(out[7]["content"].get<std::string>().find("narrower") != std::string::npos);
  CHECK(out[9]["content"].get<std::string>().find("narrower") != std::string::npos);
  CHECK(out[11]["content"] == in[11]["content"]); // target reached before it
  CHECK(nb::estimate_tokens(out) <= nb::input_budget(lim) * 85 / 100);
}

TEST_CASE("governor drops old history to a tail that starts at a user message") {
  governor_limits lim{3000, 500, 16000}; // budget 1 476 tokens
  json in = json::array({sys("rules")});
  for (int i = 0; i < 40; ++i) {
    in.push_back(user("question " + std::string(300, 'q')));
    in.push_back(asst_calls(json::array({call("id" + std::to_string(i), "exec")})));
    in.push_back(result("id" + std::to_string(i), "short"));
    in.push_back(asst("answer " + std::string(300, 'a')));
  }
  auto out = govern_messages(in, lim);
  CHECK(out[0]["role"] == "system");
  CHECK(out[1]["role"] == "user");
  CHECK(out.size() < in.size());
  CHECK(out.back() == in.back());
  CHECK(nb::estimate_tokens(out) <= nb::input_budget(lim));
  CHECK(pairing_problem(out).empty());
}

TEST_CASE("governor never throws on odd input") {
  for (auto& in : {json(nullptr), json(3), json("x"), json::object(),
                   json::array({1, "two", nullptr, json::array()}),
                   json::array({{{"role", 5}}, {{"role", "tool"}},
                                {{"role", "assistant"}, {"tool_calls", "bad"}},
                                {{"role", "assistant"}, {"tool_calls", json::array({1, nullptr})}},
                                {{"role", "assistant"}, {"content", "x"},
                                 {"tool_calls", json::array({{{"id", "q"}, {"function", 3}}})}}})}) {
    json out;
    CHECK_NOTHROW(out = govern_messages(in, big));
    CHECK(out.is_array());
    CHECK(pairing_problem(out).empty());
  }
  CHECK(nb::input_budget({1000, 4000, 100}) == 500);
  CHECK(nb::input_budget({100, 4000, 100}) == 128);
}

namespace {

/// A random transcript with every kind of damage the governor must repair.
json random_transcript(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  auto text = [&] {
    int r = pick(20);
    size_t n = r == 0 ? 20000 + pick(30000) : r < 4 ? 600 + pick(3000) : pick(80);
    return std::string(n, static_cast<char>('a' + pick(26)));
  };
  auto some_id = [&]() -> json {
    int r = pick(12);
    if (r == 0) return nullptr;
    if (r == 1) return "";
    return "c" + std::to_string(pick(15));
  };
  auto some_name = [&]() -> json {
    int r = pick(14);
    if (r == 0) return nullptr;
    if (r == 1) return "";
    if (r == 2) return 42;
    return r % 2 ? "exec" : "read_file";
  };
  json msgs = json::array();
  if (pick(4) != 0)
    msgs.push_back(sys("system " + text()));
  int n = pick(40);
  for (int i = 0; i < n; ++i) {
    int r = pick(10);
    if (r < 3) {
      msgs.push_back(user(text()));
    } else if (r < 5) {
      msgs.push_back(pick(6) == 0 ? asst("[Assistant reply unavailable due to model error.]")
                                  : asst(text()));
    } else if (r < 7) {
      json calls = json::array();
      int k = 1 + pick(3);
      for (int c = 0; c < k; ++c)
        calls.push_back(call(some_id(), some_name()));
      msgs.push_back(asst_calls(calls, pick(3) == 0 ? json(text()) : json(nullptr)));
      int answers = pick(k + 2);
      for (int a = 0; a < answers; ++a)
        msgs.push_back(result(pick(5) == 0 ? some_id() : calls[pick(k)]["id"], text()));
    } else if (r < 8) {
      msgs.push_back(result(some_id(), text())); // likely orphan
    } else if (r < 9) {
      msgs.push_back(sys("note " + text()));
    } else {
      msgs.push_back(user(text()));
    }
  }
  return msgs;
}

bool has_user(const json& msgs) {
  for (auto& m : msgs)
    if (m.is_object() && role_of(m) == "user")
      return true;
  return false;
}

} // namespace

TEST_CASE("governor property over random transcripts") {
  std::mt19937 rng(20261129);
  const governor_limits limits[] = {{1000000, 8192, 16000}, {30000, 4096, 16000},
                                    {8000, 2000, 4000}, {3000, 1000, 2000}};
  int over_budget = 0, snipped = 0;
  for (int round = 0; round < 3000; ++round) {
    auto in = random_transcript(rng);
    auto lim = limits[round % 4];
    auto before = in.dump();
    auto out = govern_messages(in, lim);
    REQUIRE(in.dump() == before);
    // The request text is the same list, from made messages' texts or not.
    std::vector<nb::shared_model_message> made;
    for (auto& m : in)
      made.push_back(nb::make_model_message(m));
    REQUIRE(nb::govern_messages_text(made, lim) == out.dump());
    REQUIRE(nb::govern_messages_text(in, lim) == out.dump());
    REQUIRE(in.dump() == before);
    INFO("round " << round);
    REQUIRE(out.is_array());
    CHECK(pairing_problem(out) == "");
    auto budget = nb::input_budget(lim);
    size_t first = 0;
    while (first < out.size() && out[first]["role"] == "system")
      ++first;
    if (has_user(in))
      CHECK((first == out.size() || out[first]["role"] == "user"));
    if (out.size() < in.size())
      ++snipped;
    for (auto& m : out)
      if (m["role"] == "tool")
        CHECK(m["content"].get<std::string>().size()
              <= lim.max_tool_result_chars + 16);
    if (nb::estimate_tokens(out) <= budget || !has_user(out))
      continue;
    // Over budget is only allowed when the rules ran out: one user turn
    // left whose results were all compacted.
    ++over_budget;
    int users = 0;
    for (size_t i = first; i < out.size(); ++i) {
      if (out[i]["role"] == "user")
        ++users;
      else if (out[i]["role"] == "tool")
        CHECK(out[i]["content"].get<std::string>().size() < 500);
    }
    CHECK(users == 1);
  }
  MESSAGE("over budget but irreducible: " << over_budget << " / 3000");
  CHECK(snipped > 0);
}

TEST_CASE("a 10000-message transcript governed as request text") {
  // Timings are in tests/bench/context_bench.cpp; this checks the result.
  json in = json::array({sys(std::string(2000, 's'))});
  for (int i = 0; (int)in.size() < 10000; ++i) {
    auto id = "call_" + std::to_string(i);
    in.push_back(user("question " + std::to_string(i) + std::string(100, 'q')));
    in.push_back(asst_calls(json::array({call(id, "exec")})));
    in.push_back(result(id, std::string(400, 'r')));
    in.push_back(asst("answer " + std::string(150, 'a')));
  }
  std::vector<nb::shared_model_message> made;
  for (auto& m : in)
    made.push_back(nb::make_model_message(m));
  auto before = in.dump();
  governor_limits fits{100000000, 8192, 16000};
  governor_limits tight{200000, 8192, 16000};
  CHECK(nb::govern_messages_text(made, fits) == before);
  CHECK(nb::govern_messages_text(in, fits) == before);
  auto snipped = nb::govern_messages_text(made, tight);
  auto parsed = json::parse(snipped);
  CHECK(parsed == govern_messages(in, tight));
  CHECK(parsed.size() < in.size());
  CHECK(parsed[0]["role"] == "system");
  CHECK(parsed[1]["role"] == "user");
  CHECK(nb::estimate_tokens(parsed) <= nb::input_budget(tight));
  CHECK(snipped == nb::govern_messages_text(in, tight));
  CHECK(in.dump() == before);
}
