// Session files: nanobot's JSONL format, tolerant loading, appends after a
// crash-cut line, atomic replace. Real files in a temp directory.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "actors/store/session_files.hpp"
#include "tests/store/temp_dir.hpp"

namespace {

using namespace nb;
using nb::test::list_dir;
using nb::test::slurp;
using nb::test::spit;
using nb::test::temp_dir;
using json = nlohmann::json;

std::string msg(const std::string& role, const std::string& content) {
  return json{{"role", role}, {"content", content}}.dump();
}

session_snapshot must_load(const std::string& dir, const std::string& key) {
  auto r = load_session(dir, key);
  REQUIRE_MESSAGE(r, nb::test::why(r));
  return std::move(*r);
}

} // namespace

TEST_CASE("session file names are base64url without padding") {
  CHECK(session_file_name("telegram:123") == "dGVsZWdyYW06MTIz.jsonl");
  CHECK(session_file_name("a") == "YQ.jsonl");
  CHECK(session_file_name("ab") == "YWI.jsonl");
  CHECK(session_file_name("\xfb\xff") == "-_8.jsonl");
  // Keys that a sanitiser would fold together stay apart (E9).
  CHECK(session_file_name("a:b") != session_file_name("a_b"));
  CHECK(session_file_name("a/b") != session_file_name("a_b"));
}

TEST_CASE("colliding looking keys get distinct files") {
  temp_dir d;
  REQUIRE_FALSE(append_session(d.path, "a:b", {msg("user", "colon")}));
  REQUIRE_FALSE(append_session(d.path, "a_b", {msg("user", "underscore")}));
  auto x = must_load(d.path, "a:b");
  auto y = must_load(d.path, "a_b");
  REQUIRE(x.messages.size() == 1);
  REQUIRE(y.messages.size() == 1);
  CHECK(json::parse(x.messages[0])["content"] == "colon");
  CHECK(json::parse(y.messages[0])["content"] == "underscore");
  CHECK(list_dir(d.path).size() == 2);
}

TEST_CASE("a missing session loads as not existing") {
  temp_dir d;
  auto s = must_load(d.path, "cli:direct");
  CHECK_FALSE(s.existed);
  CHECK(s.key == "cli:direct");
  CHECK(s.messages.empty());
  CHECK(s.metadata_json == "{}");
  CHECK(s.skipped_lines == 0);
  CHECK(list_dir(d.path).empty()); // loading creates nothing
}

TEST_CASE("append then load round trips in order") {
  temp_dir d;
  REQUIRE_FALSE(append_session(d.path, "api:x",
                               {msg("user", "hi"), msg("assistant", "hello")}));
  REQUIRE_FALSE(append_session(d.path, "api:x", {msg("user", "again")}));
  auto s = must_load(d.path, "api:x");
  CHECK(s.existed);
  CHECK(s.skipped_lines == 0);
  CHECK(s.metadata_json == "{}");
  REQUIRE(s.messages.size() == 3);
  CHECK(s.messages[0] == msg("user", "hi"));
  CHECK(s.messages[1] == msg("assistant", "hello"));
  CHECK(s.messages[2] == msg("user", "again"));

  // Line one is nanobot's metadata record, keys in nanobot's order.
  auto raw = slurp(d.path + "/" + session_file_name("api:x"));
  auto first = raw.substr(0, raw.find('\n'));
  CHECK(first.rfind(R"({"_type":"metadata","key":"api:x","created_at":")", 0)
        == 0);
  auto meta = json::parse(first);
  CHECK(meta["metadata"] == json::object());
  CHECK(meta["last_consolidated"] == 0);
  auto created = meta["created_at"].get<std::string>();
  CHECK(created.size() == 26); // 2025-01-31T12:34:56.123456
  CHECK(created[10] == 'T');
  CHECK(meta["updated_at"].is_string());
  CHECK(raw.back() == '\n');
}

TEST_CASE("a message text spanning lines is stored on one line") {
  temp_dir d;
  REQUIRE_FALSE(append_session(d.path, "k",
                               {"{\n  \"role\": \"user\",\n  \"content\": "
                                "\"two\\nlines\"\n}"}));
  auto s = must_load(d.path, "k");
  REQUIRE(s.messages.size() == 1);
  CHECK(json::parse(s.messages[0])["content"] == "two\nlines");
  CHECK(s.messages[0].find('\n') == std::string::npos);
}

TEST_CASE("a nanobot written file loads with its extra fields") {
  temp_dir d;
  auto path = d.path + "/" + session_file_name("telegram:42");
  std::string lines[] = {
    R"({"_type":"metadata","key":"telegram:42","created_at":"2025-06-01T10:00:00.000001","updated_at":"2025-06-01T10:05:00.5","metadata":{"pending_user_turn":false,"last_channel":"telegram","_last_usage":{"prompt_tokens":12}},"last_consolidated":2})",
    R"({"_type":"provider_state","state":{"response_id":"resp_1"}})",
    R"({"role":"user","content":"/help","timestamp":"2025-06-01T10:00:01","_command":true})",
    R"({"role":"user","content":"list files","timestamp":"2025-06-01T10:01:00"})",
    R"({"role":"assistant","content":"","reasoning_content":"think","tool_calls":[{"id":"call_1","type":"function","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}}],"timestamp":"2025-06-01T10:01:02"})",
    R"({"role":"tool","tool_call_id":"call_1","name":"list_dir","content":"a.txt","timestamp":"2025-06-01T10:01:03"})",
    R"({"role":"assistant","content":"One file: a.txt","latency_ms":812,"timestamp":"2025-06-01T10:01:04"})",
  };
  std::string text;
  for (auto& l : lines)
    text += l + "\n";
  spit(path, text);
  auto s = must_load(d.path, "telegram:42");
  CHECK(s.existed);
  CHECK(s.skipped_lines == 0);
  REQUIRE(s.messages.size() == 5);
  for (size_t i = 0; i < 5; ++i)
    CHECK(s.messages[i] == lines[i + 2]); // byte for byte
  auto meta = json::parse(s.metadata_json);
  CHECK(meta["last_channel"] == "telegram");
  CHECK(meta["_last_usage"]["prompt_tokens"] == 12);
  CHECK(slurp(path) == text); // loading never rewrites
}

TEST_CASE("corrupt middle and truncated last lines are skipped and counted") {
  temp_dir d;
  REQUIRE_FALSE(append_session(d.path, "k", {msg("user", "one")}));
  auto path = d.path + "/" + session_file_name("k");
  auto text = slurp(path);
  text += "{not json at all\n";
  text += "[1,2,3]\n"; // valid JSON, not an object
  text += msg("assistant", "two") + "\n";
  text += R"({"role":"user","content":"cut off by a cra)"; // no newline
  spit(path, text);

  auto s = must_load(d.path, "k");
  CHECK(s.skipped_lines == 3);
  REQUIRE(s.messages.size() == 2);
  CHECK(s.messages[0] == msg("user", "one"));
  CHECK(s.messages[1] == msg("assistant", "two"));

  // The next append starts on a fresh line instead of gluing onto garbage.
  REQUIRE_FALSE(append_session(d.path, "k", {msg("user", "three")}));
  auto after = must_load(d.path, "k");
  CHECK(after.skipped_lines == 3);
  REQUIRE(after.messages.size() == 3);
  CHECK(after.messages[2] == msg("user", "three"));
  // Old bytes untouched, but for the metadata line's updated_at, which an
  // append moves to now in place (as the original orders sessions by it).
  auto now_text = slurp(path);
  auto body = [](const std::string& t) { return t.substr(t.find('\n')); };
  CHECK(body(now_text).rfind(body(text) + "\n", 0) == 0);
  CHECK(now_text.find('\n') == text.find('\n'));
}

TEST_CASE("a bad or missing metadata line keeps the messages") {
  temp_dir d;
  auto path = d.path + "/" + session_file_name("k");
  spit(path, "{\"_type\":\"metadata\",\"key\":\n" + msg("user", "a") + "\n"
               + msg("assistant", "b") + "\n");
  auto s = must_load(d.path, "k");
  CHECK(s.skipped_lines == 1);
  CHECK(s.metadata_json == "{}");
  CHECK(s.messages.size() == 2);

  spit(path, msg("user", "no metadata at all") + "\n");
  auto t = must_load(d.path, "k");
  CHECK(t.skipped_lines == 0);
  CHECK(t.metadata_json == "{}");
  CHECK(t.messages.size() == 1);

  // A metadata line whose "metadata" is not an object: messages survive.
  spit(path, R"({"_type":"metadata","key":"k","metadata":[1]})" "\n"
               + msg("user", "x") + "\n");
  auto u = must_load(d.path, "k");
  CHECK(u.metadata_json == "{}");
  CHECK(u.messages.size() == 1);
}

TEST_CASE("an all garbage file loads empty and stays byte for byte") {
  temp_dir d;
  auto path = d.path + "/" + session_file_name("k");
  using namespace std::string_literals;
  auto garbage = "\x00\x01garbage\n{{{{\n\"just a string\"\n\xff\xfe\0tail"s;
  spit(path, garbage);
  auto s = must_load(d.path, "k");
  CHECK(s.existed);
  CHECK(s.messages.empty());
  CHECK(s.metadata_json == "{}");
  CHECK(s.skipped_lines == 4);
  CHECK(slurp(path) == garbage);
  CHECK(list_dir(d.path).size() == 1);
}

TEST_CASE("replace writes a complete file atomically without temp litter") {
  temp_dir d;
  REQUIRE_FALSE(append_session(d.path, "k", {msg("user", "old")}));
  auto path = d.path + "/" + session_file_name("k");
  auto created = json::parse(slurp(path).substr(0, slurp(path).find('\n')))
                   ["created_at"];
  REQUIRE_FALSE(replace_session(d.path, "k", R"({"z":1,"a":{"b":2}})",
                                {msg("user", "new 1"), msg("assistant", "new 2")}));
  CHECK(list_dir(d.path) == std::set<std::string>{session_file_name("k")});
  CHECK(nb::test::mode_of(path) == 0600);
  auto s = must_load(d.path, "k");
  CHECK(s.metadata_json == R"({"z":1,"a":{"b":2}})"); // key order kept
  REQUIRE(s.messages.size() == 2);
  CHECK(s.messages[0] == msg("user", "new 1"));
  CHECK(s.messages[1] == msg("assistant", "new 2"));
  auto meta = json::parse(slurp(path).substr(0, slurp(path).find('\n')));
  CHECK(meta["created_at"] == created); // the session keeps its birth date
  CHECK(meta["key"] == "k");

  // Replace also creates a new file, and appends continue after it.
  REQUIRE_FALSE(replace_session(d.path, "fresh", "{}", {}));
  REQUIRE_FALSE(append_session(d.path, "fresh", {msg("user", "x")}));
  auto f = must_load(d.path, "fresh");
  CHECK(f.messages.size() == 1);
  CHECK(f.skipped_lines == 0);
}

TEST_CASE("replace keeps a copy of a file with corrupt lines") {
  temp_dir d;
  auto name = session_file_name("k");
  auto path = d.path + "/" + name;
  std::string old = msg("user", "a") + "\n{garbage\n";
  spit(path, old);
  REQUIRE_FALSE(replace_session(d.path, "k", "{}", {msg("user", "a")}));
  auto names = list_dir(d.path);
  REQUIRE(names.size() == 2);
  names.erase(name);
  CHECK(names.begin()->rfind(name + ".corrupt-", 0) == 0);
  CHECK(slurp(d.path + "/" + *names.begin()) == old);
  CHECK(must_load(d.path, "k").skipped_lines == 0);
}

TEST_CASE("bad input is rejected with a clear error and nothing written") {
  temp_dir d;
  auto e1 = append_session(d.path, "k", {msg("user", "ok"), "[1]"});
  REQUIRE(e1);
  CHECK(e1.category() == caf::atom("nb"));
  CHECK(store_error_text(e1).find("message 1 is not a JSON object")
        != std::string::npos);
  auto e2 = append_session(d.path, "k", {"{\"role\":"});
  CHECK(store_error_text(e2).find("message 0") != std::string::npos);
  auto e3 = replace_session(d.path, "k", "[]", {});
  CHECK(store_error_text(e3).find("metadata is not a JSON object")
        != std::string::npos);
  auto e4 = append_session(d.path, "", {msg("user", "x")});
  CHECK(store_error_text(e4).find("empty session key") != std::string::npos);
  CHECK_FALSE(load_session(d.path, ""));
  CHECK(list_dir(d.path).empty());
}

TEST_CASE("lines are sorted by their top-level _type only") {
  temp_dir d;
  REQUIRE_FALSE(append_session(d.path, "k", {msg("user", "one")}));
  auto path = d.path + "/" + session_file_name("k");
  auto text = slurp(path);
  // A message that mentions "_type" in its text or deeper down is a message.
  auto nested = json{{"role", "tool"}, {"tool_call_id", "c"},
                     {"content", R"({"_type":"metadata"})"},
                     {"extra", {{"_type", "provider_state"}}}}.dump();
  text += nested + "\n";
  text += R"({"_type":7,"role":"user","content":"a record"})" "\n";
  text += R"({"_type":"later_kind","role":"user"})" "\n";
  // The last of duplicate keys counts, as a parse keeps it.
  text += R"({"_type":"x","role":"user","_type":{"deep":1}})" "\n";
  text += R"({"role":"assistant","content":"two"} trailing)" "\n";
  text += msg("assistant", "three") + "\n";
  spit(path, text);
  auto s = must_load(d.path, "k");
  CHECK(s.skipped_lines == 1); // the line with trailing text
  REQUIRE(s.messages.size() == 3);
  CHECK(s.messages[0] == msg("user", "one"));
  CHECK(s.messages[1] == nested);
  CHECK(s.messages[2] == msg("assistant", "three"));
  // A rewrite keeps the metadata read from the first metadata line.
  REQUIRE_FALSE(replace_session(d.path, "k", R"({"a":1})", {msg("user", "n")}, 3));
  auto r = must_load(d.path, "k");
  REQUIRE(r.messages.size() == 4);
  CHECK(r.messages[3] == msg("user", "n"));
  CHECK(json::parse(r.metadata_json)["a"] == 1);
}
