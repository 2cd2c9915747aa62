// In-place saves of config.json (config/inplace_save.hpp), on real files and
// a real process killed mid-save: the inode stays (the exec sandbox's mask
// is on it), the file is 0600, and a crash at any point leaves the config
// as it was before the save or as saved, never torn: the next read writes
// the recovery copy back. A file that parses but differs from the copy is
// kept aside, not lost.
#include <csignal>
#include <ctime>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "config/config_save.hpp"
#include "config/inplace_save.hpp"
#include "config/load.hpp"
#include "tests/config/helpers.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;
namespace fs = std::filesystem;

namespace {

std::string config_with_model(const std::string& model,
                              size_t padding = 0) {
  nlohmann::json j{{"agents", {{"defaults", {{"model", model}}}}}};
  if (padding > 0)
    j["padding"] = std::string(padding, model.back());
  return j.dump(2);
}

ino_t inode_of(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// Sets `path`'s modification time `seconds` into the past.
void set_age(const std::string& path, int seconds) {
  timespec t[2];
  ::clock_gettime(CLOCK_REALTIME, &t[0]);
  t[0].tv_sec -= seconds;
  t[1] = t[0];
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), t, 0) == 0);
}

} // namespace

TEST_CASE("a config dir with a save dir keeps config.json's inode on save") {
  scratch_dir dir;
  auto path = dir.at("config.json");
  write_all(path, config_with_model("m-old"));
  ::chmod(path.c_str(), 0644);
  auto before = inode_of(path);
  // The usual layout: an atomic rename, a new inode.
  auto w = save_config_text(path, config_with_model("m-renamed"));
  REQUIRE_MESSAGE(w.outcome == write_outcome::written, w.error);
  CHECK(inode_of(path) != before);

  REQUIRE(save_config_in_place_from_now(path).empty());
  before = inode_of(path);
  auto read = read_all(path);
  w = save_config_text(path, config_with_model("m-in-place"), read);
  REQUIRE_MESSAGE(w.outcome == write_outcome::written, w.error);
  CHECK(inode_of(path) == before);
  CHECK(read_all(path) == config_with_model("m-in-place"));
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK_FALSE(fs::exists(dir.at(".config-save/config.json")));
  // Shorter text: the file is cut to it.
  w = save_config_text(path, "{}");
  REQUIRE(w.outcome == write_outcome::written);
  CHECK(read_all(path) == "{}");
  // A save made from an old read still leaves a newer file alone.
  w = save_config_text(path, config_with_model("m-stale"), read);
  CHECK(w.outcome == write_outcome::kept);
  CHECK(read_all(path) == "{}");
}

TEST_CASE("a save interrupted mid-rewrite is finished by the next load") {
  scratch_dir dir;
  auto path = dir.at("config.json");
  write_all(path, config_with_model("m-old"));
  REQUIRE(save_config_in_place_from_now(path).empty());
  // What a crash during the rewrite leaves: the complete copy, and the file
  // half new, half old.
  auto saved = config_with_model("m-saved", 3000);
  write_all(dir.at(".config-save/config.json"), saved);
  auto torn = saved.substr(0, saved.size() / 2);
  write_all(path, torn + config_with_model("m-old").substr(torn.size() % 10));
  auto inode = inode_of(path);

  auto loaded = load_settings(path, env_of());
  REQUIRE(std::holds_alternative<loaded_settings>(loaded));
  CHECK(std::get<loaded_settings>(loaded).value.agent.model == "m-saved");
  CHECK(read_all(path) == saved);
  CHECK(inode_of(path) == inode);
  CHECK_FALSE(fs::exists(dir.at(".config-save/config.json")));

  // Interrupted before the file was touched (it is older than the copy):
  // the same, and the old text is simply replaced.
  set_age(path, 60);
  write_all(dir.at(".config-save/config.json"), config_with_model("m-next"));
  CHECK(read_config_text(path) == config_with_model("m-next"));
  CHECK(read_all(path) == config_with_model("m-next"));
  CHECK_FALSE(fs::exists(dir.at(".config-save/config.json.before-recovery")));
}

TEST_CASE("a file edited after an interrupted save is kept beside it") {
  scratch_dir dir;
  auto path = dir.at("config.json");
  REQUIRE(save_config_in_place_from_now(path).empty());
  write_all(dir.at(".config-save/config.json"), config_with_model("m-saved"));
  set_age(dir.at(".config-save/config.json"), 60);
  write_all(path, config_with_model("m-hand-edit"));
  CHECK(read_config_text(path) == config_with_model("m-saved"));
  CHECK(read_all(dir.at(".config-save/config.json.before-recovery"))
        == config_with_model("m-hand-edit"));
}

TEST_CASE("a process killed at any point of in-place saves leaves a whole "
          "config") {
  scratch_dir dir;
  auto path = dir.at("config.json");
  // Large enough that writing and syncing take a while: kills land inside.
  auto a = config_with_model("m-a", 2 << 20);
  auto b = config_with_model("m-b", 2 << 20);
  write_all(path, a);
  REQUIRE(save_config_in_place_from_now(path).empty());
  std::mt19937 rng{42};
  int mid_save = 0;
  for (int round = 0; round < 12; ++round) {
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      for (int i = 0;; ++i)
        save_config_text(path, i % 2 ? a : b);
    }
    ::usleep(20000 + rng() % 80000);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    if (fs::exists(dir.at(".config-save/config.json")))
      ++mid_save;
    auto text = read_config_text(path);
    REQUIRE(text);
    CHECK((*text == a || *text == b));
    CHECK(read_all(path) == *text);
    CHECK_FALSE(fs::exists(dir.at(".config-save/config.json")));
  }
  MESSAGE("kills that left a recovery copy: " << mid_save << " of 12");
}
