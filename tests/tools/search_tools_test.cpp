// grep and find_files on real trees: modes, paging, filters, binary and
// large files skipped, and the walk's own boundary (symlinks out, FIFOs
// and devices never opened).
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

#include "actors/tools/file_walk.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

namespace {

void sample_tree(const test::temp_tree& t) {
  t.put("ws/src/a.py", "import os\ndef alpha():\n    return 'needle'\n");
  t.put("ws/src/b.py", "x = 1\ny = 2\nNEEDLE = 3\nz = 4\nw = 5\n");
  t.put("ws/src/deep/c.ts", "const needle = 1;\n");
  t.put("ws/docs/readme.md", "a needle in the docs\nsecond needle line\n");
  t.put("ws/node_modules/pkg/index.js", "needle in noise\n");
  t.put("ws/.git/config", "needle in git\n");
}

} // namespace

TEST_CASE("grep lists matching files by default and skips noise folders") {
  test::temp_tree t;
  sample_tree(t);
  auto out = test::run(t.ctx(), "grep", {{"pattern", "needle"}});
  REQUIRE_FALSE(out.is_error);
  CHECK(out.content == "docs/readme.md\nsrc/a.py\nsrc/deep/c.ts");
  auto icase = test::run(t.ctx(), "grep",
                         {{"pattern", "needle"}, {"case_insensitive", true}});
  CHECK(has(icase.content, "src/b.py"));
  auto none = test::run(t.ctx(), "grep", {{"pattern", "zebra"}});
  CHECK_FALSE(none.is_error);
  CHECK(has(none.content, "No matches found for pattern 'zebra'"));
}

TEST_CASE("grep content mode shows line numbers and merged context") {
  test::temp_tree t;
  sample_tree(t);
  auto out = test::run(t.ctx(), "grep",
                       {{"pattern", "NEEDLE"}, {"path", "src/b.py"},
                        {"output_mode", "content"}, {"context_before", 1},
                        {"context_after", 1}});
  REQUIRE_FALSE(out.is_error);
  CHECK(test::unframed(out.content) == "src/b.py-2-y = 2\nsrc/b.py:3:NEEDLE = 3\n"
                       "src/b.py-4-z = 4");
  auto two = test::run(t.ctx(), "grep",
                       {{"pattern", "needle"}, {"path", "docs"},
                        {"output_mode", "content"}, {"context_after", 3}});
  CHECK(test::unframed(two.content) == "docs/readme.md:1:a needle in the docs\n"
                       "docs/readme.md:2:second needle line");
  auto count = test::run(t.ctx(), "grep",
                         {{"pattern", "needle"}, {"output_mode", "count"}});
  CHECK(has(count.content, "docs/readme.md: 2"));
  CHECK(has(count.content, "src/a.py: 1"));
}

TEST_CASE("grep regex and fixed strings") {
  test::temp_tree t;
  t.put("ws/f.txt", "a.c\nabc\nfoo(1)\nnum 42\n");
  auto re = test::run(t.ctx(), "grep",
                      {{"pattern", "a.c"}, {"output_mode", "content"}});
  CHECK(test::unframed(re.content) == "f.txt:1:a.c\nf.txt:2:abc");
  auto fixed = test::run(t.ctx(), "grep",
                         {{"pattern", "a.c"}, {"fixed_strings", true},
                          {"output_mode", "content"}});
  CHECK(test::unframed(fixed.content) == "f.txt:1:a.c");
  auto digits = test::run(t.ctx(), "grep",
                          {{"pattern", "\\d+$"}, {"output_mode", "content"}});
  CHECK(test::unframed(digits.content) == "f.txt:4:num 42");
  auto bad = test::run(t.ctx(), "grep", {{"pattern", "foo("}});
  CHECK(bad.is_error);
  CHECK(has(bad.content, "Invalid regex pattern 'foo('"));
  CHECK(has(bad.content, "fixed_strings=true"));
  auto lit = test::run(t.ctx(), "grep",
                       {{"pattern", "foo("}, {"fixed_strings", true}});
  CHECK(lit.content == "f.txt");
  auto empty = test::run(t.ctx(), "grep", {{"pattern", ""}});
  CHECK(empty.is_error);
  auto mode = test::run(t.ctx(), "grep",
                        {{"pattern", "a"}, {"output_mode", "lines"}});
  CHECK(mode.is_error);
  CHECK(has(mode.content, "output_mode"));
}

TEST_CASE("grep pages with head_limit and offset") {
  test::temp_tree t;
  std::string body;
  for (int i = 1; i <= 30; ++i)
    body += "hit " + std::to_string(i) + "\n";
  t.put("ws/many.txt", body);
  auto first = test::run(t.ctx(), "grep",
                         {{"pattern", "hit"}, {"output_mode", "content"},
                          {"head_limit", 10}});
  CHECK(has(first.content, "many.txt:1:hit 1\n"));
  CHECK(has(first.content, "many.txt:10:hit 10"));
  CHECK_FALSE(has(first.content, "hit 11"));
  CHECK(has(first.content, "(Showing 1-10 of 30 matching lines; use "
                           "offset=10 for more)"));
  auto next = test::run(t.ctx(), "grep",
                        {{"pattern", "hit"}, {"output_mode", "content"},
                         {"head_limit", 10}, {"offset", 25}});
  CHECK(has(next.content, "many.txt:26:hit 26"));
  CHECK(has(next.content, "many.txt:30:hit 30"));
  CHECK_FALSE(has(next.content, "hit 25\n"));
  CHECK(has(next.content, "(Showing 26-30 of 30 matching lines)"));
  auto past = test::run(t.ctx(), "grep",
                        {{"pattern", "hit"}, {"offset", 5}});
  CHECK(has(past.content, "past the last of 1"));
  auto legacy = test::run(t.ctx(), "grep",
                          {{"pattern", "hit"}, {"output_mode", "content"},
                           {"max_matches", 2}});
  CHECK(has(legacy.content, "Showing 1-2 of 30"));
}

TEST_CASE("grep filters by glob and type and skips binary and large files") {
  test::temp_tree t;
  sample_tree(t);
  t.put("ws/bin.dat", std::string("needle\0\0\0binary", 16));
  t.put("ws/big.txt", std::string(3 * 1024 * 1024, 'x') + "\nneedle\n");
  auto py = test::run(t.ctx(), "grep", {{"pattern", "needle"}, {"type", "py"}});
  CHECK(py.content == "src/a.py");
  auto glob = test::run(t.ctx(), "grep",
                        {{"pattern", "needle"}, {"glob", "*.{md,ts}"}});
  CHECK(has(glob.content, "docs/readme.md\nsrc/deep/c.ts"));
  auto deep = test::run(t.ctx(), "grep",
                        {{"pattern", "needle"}, {"glob", "src/**/*.ts"}});
  CHECK(has(deep.content, "src/deep/c.ts"));
  CHECK_FALSE(has(deep.content, "readme"));
  auto all = test::run(t.ctx(), "grep", {{"pattern", "needle"}});
  CHECK_FALSE(has(all.content, "bin.dat\n"));
  CHECK_FALSE(has(all.content, "big.txt\n"));
  CHECK(has(all.content, "(Skipped files: 1 binary, 1 over 2 MB)"));
  auto explicit_big = test::run(t.ctx(), "grep",
                                {{"pattern", "needle"}, {"path", "big.txt"}});
  CHECK(explicit_big.content == "big.txt");
  auto explicit_bin = test::run(t.ctx(), "grep",
                                {{"pattern", "needle"}, {"path", "bin.dat"}});
  CHECK(explicit_bin.is_error);
  CHECK(has(explicit_bin.content, "binary"));
  auto type = test::run(t.ctx(), "grep",
                        {{"pattern", "x"}, {"type", "cobol"}});
  CHECK(type.is_error);
  CHECK(has(type.content, "Unknown type 'cobol'"));
}

TEST_CASE("search walks skip symlinks out FIFOs and devices") {
  test::temp_tree t;
  t.put("ws/ok.txt", "SECRET-free needle\n");
  REQUIRE(::symlink((t.outside + "/secret.txt").c_str(),
                    (t.ws + "/leak.txt").c_str()) == 0);
  REQUIRE(::symlink(t.outside.c_str(), (t.ws + "/outdir").c_str()) == 0);
  REQUIRE(::symlink("/dev/zero", (t.ws + "/zero").c_str()) == 0);
  REQUIRE(::mkfifo((t.ws + "/fifo").c_str(), 0600) == 0);
  auto start = std::chrono::steady_clock::now();
  auto out = test::run(t.ctx(), "grep",
                       {{"pattern", "SECRET"}, {"output_mode", "content"}});
  CHECK_FALSE(out.is_error);
  CHECK_FALSE(has(out.content, "TOP-SECRET"));
  CHECK(has(out.content, "ok.txt:1:SECRET-free needle"));
  CHECK(has(out.content, "symlinked outside the workspace"));
  auto files = test::run(t.ctx(), "find_files", json::object());
  CHECK_FALSE(has(files.content, "leak.txt"));
  CHECK_FALSE(has(files.content, "secret.txt"));
  CHECK(has(files.content, "ok.txt"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  // Unrestricted, the link to a file is followed; the folder never is.
  auto free = test::run(t.ctx(false), "grep",
                        {{"pattern", "SECRET"}, {"output_mode", "content"}});
  CHECK(has(free.content, "leak.txt:1:TOP-SECRET"));
  CHECK_FALSE(has(free.content, "outdir"));
}

TEST_CASE("find_files matches globs types terms and pages") {
  test::temp_tree t;
  sample_tree(t);
  auto all = test::run(t.ctx(), "find_files", json::object());
  CHECK(all.content
        == "docs/readme.md\nsrc/a.py\nsrc/b.py\nsrc/deep/c.ts");
  auto py = test::run(t.ctx(), "find_files", {{"glob", "*.py"}});
  CHECK(py.content == "src/a.py\nsrc/b.py");
  auto ts = test::run(t.ctx(), "find_files", {{"type", "ts"}});
  CHECK(ts.content == "src/deep/c.ts");
  auto terms = test::run(t.ctx(), "find_files", {{"query", "SRC  a"}});
  CHECK(terms.content == "src/a.py");
  auto sub = test::run(t.ctx(), "find_files",
                       {{"path", "src"}, {"glob", "deep/*.ts"}});
  CHECK(sub.content == "src/deep/c.ts");
  auto dirs = test::run(t.ctx(), "find_files",
                        {{"include_dirs", true}, {"query", "deep"}});
  CHECK(dirs.content == "src/deep/\nsrc/deep/c.ts");
  auto page = test::run(t.ctx(), "find_files",
                        {{"head_limit", 2}, {"offset", 1}});
  CHECK(has(page.content, "src/a.py\nsrc/b.py\n\n(Showing 2-3 of 4 entries; "
                          "use offset=3 for more)"));
  auto none = test::run(t.ctx(), "find_files", {{"glob", "*.rb"}});
  CHECK(has(none.content, "No files found"));
  auto bad = test::run(t.ctx(), "find_files", {{"sort", "size"}});
  CHECK(bad.is_error);
}

TEST_CASE("glob matching follows shell rules") {
  CHECK(glob_match("*.py", "a.py"));
  CHECK_FALSE(glob_match("*.py", "src/a.py"));
  CHECK(glob_match("src/**/*.py", "src/a.py"));
  CHECK(glob_match("src/**/*.py", "src/x/y/a.py"));
  CHECK(glob_match("**", "a/b/c"));
  CHECK(glob_match("file?.[ch]", "file1.c"));
  CHECK_FALSE(glob_match("file?.[ch]", "file1.o"));
  CHECK(expand_braces("*.{ts,tsx}")
        == std::vector<std::string>{"*.ts", "*.tsx"});
  // A hostile pattern ends quickly.
  auto start = std::chrono::steady_clock::now();
  glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*b", std::string(200, 'a'));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}
