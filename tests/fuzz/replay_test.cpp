// Every libFuzzer harness replayed over its committed seed corpus in the
// ordinary build (see CMakeLists.txt here): the harness must still compile
// against the parser it drives, and no seed may crash it, throw out of it
// or make it report failure. Crash reproducers found by tests/fuzz/run.sh
// are committed as seeds, so they stay fixed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "nb_test_paths.hpp"

namespace fs = std::filesystem;

namespace {

using fuzz_entry = int (*)(const uint8_t*, size_t);

std::vector<fs::path> seeds_of(const std::string& target) {
  std::vector<fs::path> seeds;
  for (const auto& entry :
       fs::directory_iterator(fs::path(NB_SOURCE_DIR) / "tests/fuzz/corpus" / target))
    if (entry.is_regular_file())
      seeds.push_back(entry.path());
  std::sort(seeds.begin(), seeds.end());
  return seeds;
}

void replay(const std::string& target, fuzz_entry entry) {
  auto seeds = seeds_of(target);
  REQUIRE_MESSAGE(!seeds.empty(), "no seeds committed for " << target);
  for (const auto& seed : seeds) {
    std::ifstream in(seed, std::ios::binary);
    std::string bytes{std::istreambuf_iterator<char>(in), {}};
    INFO("seed ", seed.filename().string(), " (", bytes.size(), " bytes)");
    // A copy of exactly the input's size, so that an over-read is past the
    // end of the buffer (and reported under --sanitize).
    std::vector<uint8_t> input(bytes.begin(), bytes.end());
    CHECK(entry(input.data(), input.size()) == 0);
  }
}

} // namespace

#define NB_FUZZ_TARGET(name)                                          \
  extern "C" int nb_fuzz_##name(const uint8_t*, size_t);              \
  TEST_CASE("fuzz seed corpus replays cleanly: " #name) {             \
    replay(#name, nb_fuzz_##name);                                    \
  }
#include "nb_fuzz_targets.inc"
