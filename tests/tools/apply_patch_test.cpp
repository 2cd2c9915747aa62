// apply_patch against the original's contract: replace and add edits over
// several files, new files, CRLF kept, the result texts with line counts,
// dry runs that write nothing, all-or-nothing on any bad edit, and the
// workspace boundary.
#include <doctest/doctest.h>

#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

TEST_CASE("apply_patch replaces and appends and creates across files") {
  test::temp_tree t;
  t.put("ws/a.txt", "one\ntwo\nthree\n");
  t.put("ws/b.txt", "alpha");
  auto r = test::run(t.ctx(), "apply_patch",
                     {{"edits",
                       {{{"path", "a.txt"}, {"action", "replace"},
                         {"old_text", "two\n"}, {"new_text", "TWO\n2b\n"}},
                        {{"path", "b.txt"}, {"action", "add"},
                         {"new_text", "beta"}},
                        {{"path", "sub/new.txt"}, {"action", "add"},
                         {"new_text", "x\ny"}}}}});
  CHECK_FALSE(r.is_error);
  CHECK(r.content
        == "Patch applied:\n- update a.txt (+2/-1)\n- update b.txt (+1/-0)\n"
           "- add sub/new.txt (+2/-0)");
  CHECK(t.get("ws/a.txt") == "one\nTWO\n2b\nthree\n");
  CHECK(t.get("ws/b.txt") == "alpha\nbeta\n");
  CHECK(t.get("ws/sub/new.txt") == "x\ny\n");
}

TEST_CASE("apply_patch keeps CRLF files CRLF and chains edits to one file") {
  test::temp_tree t;
  t.put("ws/w.txt", "a\r\nb\r\n");
  auto r = test::run(t.ctx(), "apply_patch",
                     {{"edits",
                       {{{"path", "w.txt"}, {"action", "replace"},
                         {"old_text", "b"}, {"new_text", "B"}},
                        {{"path", "w.txt"}, {"action", "add"},
                         {"new_text", "c"}}}}});
  CHECK_FALSE(r.is_error);
  CHECK(t.get("ws/w.txt") == "a\r\nB\r\nc\r\n");
}

TEST_CASE("apply_patch dry run writes nothing") {
  test::temp_tree t;
  t.put("ws/a.txt", "one\n");
  auto r = test::run(t.ctx(), "apply_patch",
                     {{"edits", {{{"path", "a.txt"}, {"action", "replace"},
                                  {"old_text", "one"}, {"new_text", "1"}}}},
                      {"dry_run", true}});
  CHECK(r.content == "Patch dry-run succeeded:\n- update a.txt (+1/-1)");
  CHECK(t.get("ws/a.txt") == "one\n");
}

TEST_CASE("apply_patch applies nothing when one edit is bad") {
  test::temp_tree t;
  t.put("ws/a.txt", "one\n");
  t.put("ws/d.txt", "x\nx\n");
  auto edits = json::array(
    {{{"path", "a.txt"}, {"action", "replace"}, {"old_text", "one"},
      {"new_text", "1"}},
     {{"path", "missing.txt"}, {"action", "replace"}, {"old_text", "a"},
      {"new_text", "b"}}});
  auto r = test::run(t.ctx(), "apply_patch", {{"edits", edits}});
  CHECK(r.is_error);
  CHECK(has(r.content, "Error applying patch: file to update does not exist: "
                       "missing.txt"));
  CHECK(t.get("ws/a.txt") == "one\n");

  auto twice = test::run(t.ctx(), "apply_patch",
                         {{"edits", {{{"path", "d.txt"}, {"action", "replace"},
                                      {"old_text", "x"}, {"new_text", "y"}}}}});
  CHECK(has(twice.content, "old_text appears multiple times in d.txt"));
  auto absent = test::run(t.ctx(), "apply_patch",
                          {{"edits", {{{"path", "a.txt"}, {"action", "replace"},
                                       {"old_text", "zzz"}, {"new_text", "y"}}}}});
  CHECK(has(absent.content, "old_text not found in a.txt"));
  auto unknown = test::run(t.ctx(), "apply_patch",
                           {{"edits", {{{"path", "a.txt"}, {"action", "delete"}}}}});
  CHECK(unknown.is_error);
  auto no_new = test::run(t.ctx(), "apply_patch",
                          {{"edits", {{{"path", "a.txt"}, {"action", "add"}}}}});
  CHECK(has(no_new.content, "new_text required for add: a.txt"));
}

TEST_CASE("apply_patch stays inside the workspace") {
  test::temp_tree t;
  auto r = test::run(t.ctx(), "apply_patch",
                     {{"edits", {{{"path", "../outside/secret.txt"},
                                  {"action", "add"}, {"new_text", "pwned"}}}}});
  CHECK(r.is_error);
  CHECK_FALSE(has(t.get("outside/secret.txt"), "pwned"));
}
