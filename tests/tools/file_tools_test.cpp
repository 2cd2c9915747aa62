// read_file, write_file, edit_file and list_dir on real files (A9, A10,
// A12 and the normal behaviour).
#include <doctest/doctest.h>

#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actors/tools/text.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

namespace fs = std::filesystem;

TEST_CASE("read_file numbers lines and pages with offset and limit") {
  test::temp_tree t;
  t.put("ws/f.txt", "a\nb\nc\nd\ne\n");
  auto all = test::run(t.ctx(), "read_file", {{"path", "f.txt"}});
  CHECK_FALSE(all.is_error);
  CHECK(test::unframed(all.content)
        == "1| a\n2| b\n3| c\n4| d\n5| e\n\n(End of file \xE2\x80\x94 5 lines "
           "total)");
  auto page = test::run(t.ctx(), "read_file",
                        {{"path", "f.txt"}, {"offset", 2}, {"limit", 2}});
  CHECK(test::unframed(page.content)
        == "2| b\n3| c\n\n(Showing lines 2-3 of 5. Use offset=4 to "
           "continue.)");
  auto beyond = test::run(t.ctx(), "read_file",
                          {{"path", "f.txt"}, {"offset", 9}});
  CHECK(beyond.is_error);
  CHECK(has(beyond.content, "offset 9 is beyond end of file (5 lines)"));
  CHECK(has(test::run(t.ctx(), "read_file", {{"path", "nope.txt"}}).content,
            "Error: File not found: nope.txt"));
  CHECK(has(test::run(t.ctx(), "read_file", {{"path", "src"}}).content,
            "Error: Not a file: src"));
  t.put("ws/empty.txt", "");
  CHECK(test::run(t.ctx(), "read_file", {{"path", "empty.txt"}}).content
        == "(Empty file: empty.txt)");
}

TEST_CASE("read_file turns CRLF into LF and replaces invalid UTF-8") {
  test::temp_tree t;
  t.put("ws/dos.txt", "one\r\ntwo\r\n");
  auto dos = test::run(t.ctx(), "read_file", {{"path", "dos.txt"}});
  CHECK(has(dos.content, "1| one\n2| two\n"));
  CHECK_FALSE(has(dos.content, "\r"));
  t.put("ws/latin.txt", "caf\xE9 ol\xE9\n");
  auto latin = test::run(t.ctx(), "read_file", {{"path", "latin.txt"}});
  CHECK_FALSE(latin.is_error);
  CHECK(has(latin.content, "1| caf\xEF\xBF\xBD ol\xEF\xBF\xBD"));
  CHECK(sanitize_utf8(latin.content) == latin.content);
}

TEST_CASE("read_file refuses binary files") {
  test::temp_tree t;
  t.put("ws/blob.bin", std::string("\x01\x02\x00\x03garbage", 11));
  t.put("ws/pic.png", std::string("\x89PNG\r\n\x1A\n\x00\x00", 10));
  t.put("ws/prog", std::string("\x7F" "ELF\x02\x01\x01", 7));
  for (auto [p, mime] : std::vector<std::pair<std::string, std::string>>{
         {"blob.bin", "unknown"}, {"pic.png", "image/png"},
         {"prog", "application/x-elf"}}) {
    auto out = test::run(t.ctx(), "read_file", {{"path", p}});
    CAPTURE(p);
    CHECK(out.is_error);
    CHECK(has(out.content, "Cannot read binary file " + p + " (MIME: "
                             + mime + ")"));
  }
}

TEST_CASE("read_file refuses a file over 100 MiB before reading it") {
  test::temp_tree t;
  auto path = t.ws + "/huge.log";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
  REQUIRE(fd >= 0);
  // Sparse: no 100 MiB is actually written.
  REQUIRE(::ftruncate(fd, 100ll * 1024 * 1024 + 1) == 0);
  ::close(fd);
  auto out = test::run(t.ctx(), "read_file", {{"path", "huge.log"}});
  CHECK(out.is_error);
  CHECK(has(out.content, "File too large to read (100.0 MiB). Maximum is "
                         "100 MiB."));
}

TEST_CASE("read_file trims to its character budget with an offset hint") {
  test::temp_tree t;
  std::string big;
  for (int i = 0; i < 2000; ++i)
    big += std::string(109, 'x') + "\n"; // 220 KB
  t.put("ws/big.txt", big);
  auto out = test::run(t.ctx(), "read_file", {{"path", "big.txt"}});
  CHECK_FALSE(out.is_error);
  CHECK(test::unframed(out.content).size() < 128000 + 200);
  CHECK(has(out.content, " of 2000. Use offset="));
  auto hint = out.content.substr(out.content.find("Use offset=") + 11);
  auto next = std::stoi(hint);
  CHECK(next > 1000);
  CHECK(next < 1200);
}

TEST_CASE("write_file creates parents and replaces files atomically") {
  test::temp_tree t;
  auto out = test::run(t.ctx(), "write_file",
                       {{"path", "a/b/c.txt"}, {"content", "h\xC3\xA9llo"}});
  CHECK_FALSE(out.is_error);
  CHECK(out.content == "Successfully wrote 5 characters to " + t.ws
                         + "/a/b/c.txt");
  CHECK(t.get("ws/a/b/c.txt") == "h\xC3\xA9llo");
  ::chmod((t.ws + "/a/b/c.txt").c_str(), 0640);
  CHECK_FALSE(test::run(t.ctx(), "write_file",
                        {{"path", "a/b/c.txt"}, {"content", "new"}})
                .is_error);
  CHECK(t.get("ws/a/b/c.txt") == "new");
  CHECK((fs::status(t.ws + "/a/b/c.txt").permissions() & fs::perms::all)
        == (fs::perms::owner_read | fs::perms::owner_write
            | fs::perms::group_read));
  // No temporary files are left behind.
  int entries = 0;
  for (auto& e : fs::directory_iterator(t.ws + "/a/b")) {
    (void) e;
    ++entries;
  }
  CHECK(entries == 1);
  auto dir = test::run(t.ctx(), "write_file",
                       {{"path", "src"}, {"content", "x"}});
  CHECK(dir.is_error);
}

TEST_CASE("edit_file replaces exact text and names ambiguity") {
  test::temp_tree t;
  t.put("ws/e.txt", "alpha\nbeta\nalpha\n");
  auto amb = test::run(t.ctx(), "edit_file",
                       {{"path", "e.txt"}, {"old_text", "alpha"},
                        {"new_text", "gamma"}});
  CHECK(amb.is_error);
  CHECK(has(amb.content, "old_text appears 2 times (at line 1, line 3)"));
  CHECK(t.get("ws/e.txt") == "alpha\nbeta\nalpha\n");
  auto one = test::run(t.ctx(), "edit_file",
                       {{"path", "e.txt"}, {"old_text", "beta"},
                        {"new_text", "BETA"}});
  CHECK_FALSE(one.is_error);
  CHECK(one.content == "Successfully edited " + t.ws + "/e.txt");
  CHECK(t.get("ws/e.txt") == "alpha\nBETA\nalpha\n");
  CHECK_FALSE(test::run(t.ctx(), "edit_file",
                        {{"path", "e.txt"}, {"old_text", "alpha"},
                         {"new_text", "z"}, {"occurrence", 2}})
                .is_error);
  CHECK(t.get("ws/e.txt") == "alpha\nBETA\nz\n");
  auto all = test::run(t.ctx(), "edit_file",
                       {{"path", "e.txt"}, {"old_text", "a"},
                        {"new_text", "4"}, {"replace_all", true}});
  CHECK(has(all.content, "(2 replacements)"));
  CHECK(t.get("ws/e.txt") == "4lph4\nBETA\nz\n");
}

TEST_CASE("edit_file errors leave the file unchanged") {
  test::temp_tree t;
  t.put("ws/e.txt", "one\ntwo\n");
  auto same = test::run(t.ctx(), "edit_file",
                        {{"path", "e.txt"}, {"old_text", "one"},
                         {"new_text", "one"}});
  CHECK(same.is_error);
  CHECK(has(same.content, "new_text must be different from old_text"));
  auto missing = test::run(t.ctx(), "edit_file",
                           {{"path", "e.txt"}, {"old_text", "three"},
                            {"new_text", "3"}});
  CHECK(has(missing.content, "Error: old_text not found in e.txt."));
  auto numbered = test::run(t.ctx(), "edit_file",
                            {{"path", "e.txt"}, {"old_text", "1| one"},
                             {"new_text", "1"}});
  CHECK(has(numbered.content, "read_file line numbers"));
  auto nofile = test::run(t.ctx(), "edit_file",
                          {{"path", "gone.txt"}, {"old_text", "x"},
                           {"new_text", "y"}});
  CHECK(has(nofile.content, "Error: File not found: gone.txt"));
  auto count = test::run(t.ctx(), "edit_file",
                         {{"path", "e.txt"}, {"old_text", "o"},
                          {"new_text", "0"}, {"replace_all", true},
                          {"expected_replacements", 5}});
  CHECK(has(count.content, "expected 5 replacements but would make 2"));
  CHECK(t.get("ws/e.txt") == "one\ntwo\n");
  t.put("ws/bin.dat", std::string("a\0b", 3));
  CHECK(test::run(t.ctx(), "edit_file",
                  {{"path", "bin.dat"}, {"old_text", "a"}, {"new_text", "b"}})
          .is_error);
}

TEST_CASE("edit_file creates a missing file from empty old_text") {
  test::temp_tree t;
  auto out = test::run(t.ctx(), "edit_file",
                       {{"path", "new/n.txt"}, {"old_text", ""},
                        {"new_text", "fresh\n"}});
  CHECK_FALSE(out.is_error);
  CHECK(out.content == "Successfully created " + t.ws + "/new/n.txt");
  CHECK(t.get("ws/new/n.txt") == "fresh\n");
  auto again = test::run(t.ctx(), "edit_file",
                         {{"path", "new/n.txt"}, {"old_text", ""},
                          {"new_text", "other"}});
  CHECK(again.is_error);
  CHECK(has(again.content, "already exists and is not empty"));
}

TEST_CASE("edit_file keeps CRLF line endings") {
  test::temp_tree t;
  t.put("ws/w.txt", "a\r\nb\r\n");
  CHECK_FALSE(test::run(t.ctx(), "edit_file",
                        {{"path", "w.txt"}, {"old_text", "a\nb"},
                         {"new_text", "x\ny"}})
                .is_error);
  CHECK(t.get("ws/w.txt") == "x\r\ny\r\n");
}

TEST_CASE("list_dir lists skips noise recurses and truncates") {
  test::temp_tree t;
  t.put("ws/b.txt", "");
  t.put("ws/src/x.cpp", "");
  t.put("ws/.git/HEAD", "");
  t.put("ws/node_modules/m/index.js", "");
  auto flat = test::run(t.ctx(), "list_dir", {{"path", "."}});
  CHECK(flat.content == "\xF0\x9F\x93\x84 b.txt\n\xF0\x9F\x93\x81 src");
  auto deep = test::run(t.ctx(), "list_dir",
                        {{"path", "."}, {"recursive", true}});
  CHECK(deep.content == "b.txt\nsrc/\nsrc/x.cpp");
  for (int i = 0; i < 30; ++i)
    t.put("ws/many/f" + std::to_string(100 + i), "");
  auto cut = test::run(t.ctx(), "list_dir",
                       {{"path", "many"}, {"max_entries", 10}});
  CHECK(has(cut.content, "(truncated, showing first 10 of 30 entries)"));
  fs::create_directories(t.ws + "/void");
  CHECK(test::run(t.ctx(), "list_dir", {{"path", "void"}}).content
        == "Directory void is empty");
  CHECK(has(test::run(t.ctx(), "list_dir", {{"path", "b.txt"}}).content,
            "Error: Not a directory: b.txt"));
  CHECK(has(test::run(t.ctx(), "list_dir", {{"path", "gone"}}).content,
            "Error: Directory not found: gone"));
}

TEST_CASE("list_dir never walks into a symlinked directory") {
  test::temp_tree t;
  REQUIRE(::symlink(t.outside.c_str(), (t.ws + "/out").c_str()) == 0);
  auto deep = test::run(t.ctx(), "list_dir",
                        {{"path", "."}, {"recursive", true}});
  CHECK(has(deep.content, "out/"));
  CHECK_FALSE(has(deep.content, "secret.txt"));
}
