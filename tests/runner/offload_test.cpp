// Tool-result offload: thresholds, the exempt tool, the note, atomic files
// and the cleanup of old buckets, on real files in a temp dir.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "actors/runner/tool_offload.hpp"

namespace fs = std::filesystem;

namespace {

struct temp_ws {
  temp_ws() {
    char tmpl[] = "/tmp/nb-offload-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~temp_ws() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string dir;
};

std::string slurp(const std::string& p) {
  std::ifstream in{p};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

TEST_CASE("a result at the limit stays and a longer one is offloaded") {
  temp_ws ws;
  nb::offload_settings cfg{ws.dir};
  std::string at_limit(16000, 'a');
  CHECK_FALSE(nb::offload_tool_result(cfg, "telegram:42", "c1", "exec", at_limit));
  std::string big = std::string(1500, 'x') + std::string(15000, 'y');
  auto note = nb::offload_tool_result(cfg, "telegram:42", "c/2", "exec", big);
  REQUIRE(note);
  auto path = ws.dir + "/.nanobot/tool-results/telegram_42/c_2.txt";
  CHECK(note->find("Full output saved to: " + path) != std::string::npos);
  CHECK(note->find("Original size: 16500 chars") != std::string::npos);
  CHECK(note->find("Preview:\n" + std::string(1200, 'x') + "\n...")
        != std::string::npos);
  CHECK(note->find(std::string(1201, 'x')) == std::string::npos);
  CHECK(note->size() < 2000);
  CHECK(slurp(path) == big);
  // An existing file is never rewritten.
  nb::offload_tool_result(cfg, "telegram:42", "c/2", "exec", big + "more");
  CHECK(slurp(path) == big);
}

TEST_CASE("read_file results and disabled offload are never written") {
  temp_ws ws;
  std::string big(20000, 'r');
  nb::offload_settings cfg{ws.dir};
  CHECK_FALSE(nb::offload_tool_result(cfg, "k", "c", "read_file", big));
  nb::offload_settings off{};
  CHECK_FALSE(nb::offload_tool_result(off, "k", "c", "exec", big));
  CHECK_FALSE(fs::exists(ws.dir + "/.nanobot"));
}

TEST_CASE("cleanup drops buckets older than a week and keeps at most 32") {
  temp_ws ws;
  nb::offload_settings cfg{ws.dir};
  auto root = ws.dir + "/.nanobot/tool-results/";
  auto now = fs::file_time_type::clock::now();
  for (int i = 0; i < 40; ++i) {
    auto d = root + "s" + std::to_string(i);
    fs::create_directories(d);
    // s0..s4 are eight days old; the rest a minute apart, s39 the newest.
    auto age = i < 5 ? std::chrono::hours(24 * 8)
                     : std::chrono::hours(0) + std::chrono::minutes(40 - i);
    fs::last_write_time(d, now - age);
  }
  REQUIRE(nb::offload_tool_result(cfg, "fresh", "c", "exec",
                                  std::string(17000, 'f')));
  std::vector<std::string> left;
  for (auto& e : fs::directory_iterator(root))
    left.push_back(e.path().filename().string());
  CHECK(left.size() == 32);
  CHECK(fs::exists(root + "fresh"));
  for (int i = 0; i < 5; ++i)
    CHECK_FALSE(fs::exists(root + "s" + std::to_string(i)));
  CHECK(fs::exists(root + "s39"));
  CHECK_FALSE(fs::exists(root + "s5")); // the oldest of the recent ones
}
