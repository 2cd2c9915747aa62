// The heap helper on whichever allocator the binary is linked with (built
// twice: on glibc's malloc, and on jemalloc as the gateway is): freed memory
// between live blocks goes back to the system when asked, and the in-use
// figure follows what the program holds, not what the allocator keeps.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "actors/common/heap.hpp"

using namespace nb;

namespace {

long long resident_bytes() {
  std::ifstream in{"/proc/self/statm"};
  long long size = 0, resident = 0;
  in >> size >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

constexpr long long mb = 1024 * 1024;

} // namespace

TEST_CASE("freed heap goes back to the system on " NB_EXPECTED_ALLOCATOR) {
  CHECK(std::string{heap_allocator_name()} == NB_EXPECTED_ALLOCATOR);
  auto in_use_before = heap_in_use_bytes();
  // 64 MB in 64 KB blocks, each touched so it is resident.
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 1024; ++i) {
    blocks.emplace_back(new char[64 * 1024]);
    std::fill_n(blocks.back().get(), 64 * 1024, static_cast<char>(i));
  }
  CHECK(heap_in_use_bytes() - in_use_before >= 60 * mb);
  auto peak = resident_bytes();
  // All but one in 16 freed: the free runs lie between live blocks.
  for (size_t i = 0; i < blocks.size(); ++i)
    if (i % 16 != 0)
      blocks[i].reset();
  auto in_use = heap_in_use_bytes() - in_use_before;
  CHECK(in_use >= 3 * mb);
  CHECK(in_use <= 8 * mb);
  give_back_free_heap();
  // About 60 MB were free; most of it is back with the system.
  CHECK(resident_bytes() <= peak - 40 * mb);
}
