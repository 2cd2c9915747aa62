// Saving config.json while someone else edits it, on real files: a change
// made from an old read never replaces a newer file; the edit is made again
// on top of what the file holds, so a hand edit saved in between survives.
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "config/config_save.hpp"
#include "tests/config/helpers.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;
namespace fs = std::filesystem;

namespace {

/// `text` (a JSON object) with `key` set to `value`.
std::string with_key(const std::string& text, const std::string& key,
                     int value) {
  auto j = text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text);
  j[key] = value;
  return j.dump(2);
}

size_t entries_in(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] auto& e : fs::directory_iterator(dir))
    ++n;
  return n;
}

} // namespace

TEST_CASE("a save made from an old read leaves a newer file alone") {
  scratch_dir dir;
  auto path = dir.at("config.json");
  write_all(path, R"({"a": 1})");
  auto read = read_all(path);
  write_all(path, R"({"a": 1, "handEdit": true})"); // saved by hand meanwhile

  auto w = save_config_text(path, with_key(read, "b", 2), read);
  CHECK(w.outcome == write_outcome::kept);
  CHECK(read_all(path) == R"({"a": 1, "handEdit": true})");
  CHECK(entries_in(dir.path) == 1); // no temp file left behind

  // Made from what the file holds now, it is written (0600: it holds keys).
  auto now = read_all(path);
  w = save_config_text(path, with_key(now, "b", 2), now);
  REQUIRE_MESSAGE(w.outcome == write_outcome::written, w.error);
  auto j = nlohmann::json::parse(read_all(path));
  CHECK(j["handEdit"] == true);
  CHECK(j["b"] == 2);
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("a missing config.json counts as read empty") {
  scratch_dir dir;
  auto path = dir.at("config.json");
  auto w = save_config_text(path, R"({"b": 2})", std::string_view{});
  REQUIRE_MESSAGE(w.outcome == write_outcome::written, w.error);
  CHECK(read_all(path) == R"({"b": 2})");
  // Once it exists, "read empty" no longer matches.
  w = save_config_text(path, R"({"c": 3})", std::string_view{});
  CHECK(w.outcome == write_outcome::kept);
  CHECK(read_all(path) == R"({"b": 2})");
}

TEST_CASE("an edit crossed by a hand edit is made again on top of it") {
  scratch_dir dir;
  auto path = dir.at("config.json");
  write_all(path, R"({"a": 1})");
  std::vector<std::string> seen;
  auto w = edit_config_file(path, [&](const std::string& current) {
    seen.push_back(current);
    if (seen.size() == 1) // the user's editor saves after our read
      write_all(path, with_key(current, "handEdit", 7));
    return std::optional<std::string>{with_key(current, "formEdit", 8)};
  });
  REQUIRE_MESSAGE(w.outcome == write_outcome::written, w.error);
  REQUIRE(seen.size() == 2);
  CHECK(seen[1].find("handEdit") != std::string::npos);
  auto j = nlohmann::json::parse(read_all(path));
  CHECK(j["a"] == 1);
  CHECK(j["handEdit"] == 7);
  CHECK(j["formEdit"] == 8);
}

TEST_CASE("an edit that gives up writes nothing; a file that never settles "
          "is an error naming it") {
  scratch_dir dir;
  auto path = dir.at("config.json");
  write_all(path, R"({"a": 1})");
  auto w = edit_config_file(
    path, [](const std::string&) { return std::optional<std::string>{}; });
  CHECK(w.outcome == write_outcome::kept);
  CHECK(read_all(path) == R"({"a": 1})");

  int calls = 0;
  w = edit_config_file(path, [&](const std::string& current) {
    write_all(path, with_key(current, "writer" + std::to_string(++calls), 1));
    return std::optional<std::string>{with_key(current, "mine", 1)};
  });
  CHECK(w.outcome == write_outcome::failed);
  CHECK(calls == 5);
  CHECK(w.error.find(path) != std::string::npos);
  CHECK(w.error.find("changed") != std::string::npos);
  // The other writer's last save stands; ours was never half-applied.
  auto j = nlohmann::json::parse(read_all(path));
  CHECK(j.contains("writer5"));
  CHECK_FALSE(j.contains("mine"));
}
