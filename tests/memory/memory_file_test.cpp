// MEMORY.md fact additions and the memory/ lock, on real files and threads.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "actors/memory/history_file.hpp"
#include "actors/memory/memory_file.hpp"

namespace fs = std::filesystem;

namespace {

struct memory_ws {
  memory_ws() {
    char tmpl[] = "/tmp/nb-memory-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~memory_ws() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string read(const std::string& rel) const {
    std::ifstream in{dir + "/" + rel};
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string dir;
};

} // namespace

TEST_CASE("facts go under their heading once and other sections stay") {
  memory_ws ws;
  fs::create_directories(ws.dir + "/memory");
  std::ofstream{ws.dir + "/memory/MEMORY.md"} << "# Memory\n\n- Lives in Oslo";
  std::string err;
  CHECK(nb::add_memory_facts(ws.dir, {"Likes tea", "Has a cat"}, err) == 2);
  CHECK(ws.read("memory/MEMORY.md")
        == "# Memory\n\n- Lives in Oslo\n\n## From conversations\n"
           "- Likes tea\n- Has a cat\n");
  // Known facts are not repeated; new ones join the same section even when
  // the user added another section after it.
  {
    std::ofstream out{ws.dir + "/memory/MEMORY.md", std::ios::app};
    out << "\n## Projects\n- nanobot\n";
  }
  CHECK(nb::add_memory_facts(ws.dir, {"Likes tea", "Runs"}, err) == 1);
  CHECK(ws.read("memory/MEMORY.md")
        == "# Memory\n\n- Lives in Oslo\n\n## From conversations\n"
           "- Likes tea\n- Has a cat\n- Runs\n\n## Projects\n- nanobot\n");
  CHECK(nb::add_memory_facts(ws.dir, {}, err) == 0);
}

TEST_CASE("a missing MEMORY.md is created with the facts") {
  memory_ws ws;
  std::string err;
  CHECK(nb::add_memory_facts(ws.dir, {"Prefers short answers"}, err) == 1);
  CHECK(ws.read("memory/MEMORY.md")
        == "## From conversations\n- Prefers short answers\n");
}

TEST_CASE("an unwritable memory folder is reported") {
  memory_ws ws;
  std::ofstream{ws.dir + "/memory"} << "a file where the folder should be";
  std::string err;
  CHECK(nb::add_memory_facts(ws.dir, {"x"}, err) == -1);
  CHECK(err.find("MEMORY.md") != std::string::npos);
  CHECK_FALSE(nb::append_history(ws.dir, "entry", "k", err));
  CHECK_FALSE(err.empty());
}

TEST_CASE("concurrent writers get distinct cursors and lose no facts") {
  memory_ws ws;
  constexpr int threads = 6, each = 15;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&ws, t] {
      std::string err;
      for (int i = 0; i < each; ++i) {
        auto tag = std::to_string(t) + "-" + std::to_string(i);
        nb::append_history(ws.dir, "entry " + tag, "s" + std::to_string(t), err);
        nb::add_memory_facts(ws.dir, {"fact " + tag}, err);
      }
    });
  for (auto& th : pool)
    th.join();
  auto all = nb::read_history(ws.dir);
  REQUIRE(all.size() == threads * each);
  std::set<int64_t> cursors;
  for (auto& e : all)
    cursors.insert(e.cursor);
  CHECK(cursors.size() == all.size());
  // 1 ... n, as the original numbers them.
  CHECK(*cursors.begin() == 1);
  CHECK(*cursors.rbegin() == threads * each);
  auto memory = ws.read("memory/MEMORY.md");
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < each; ++i)
      CHECK(memory.find("- fact " + std::to_string(t) + "-" + std::to_string(i)
                        + "\n")
            != std::string::npos);
}
