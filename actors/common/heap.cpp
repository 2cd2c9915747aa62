#include "actors/common/heap.hpp"

#include <cstddef>
#include <cstdint>

#include <malloc.h>

// Declared weak: resolved only when jemalloc is linked into the process.
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp,
                       void* newp, size_t newlen) __attribute__((weak));

namespace nb {

namespace {

/// jemalloc's MALLCTL_ARENAS_ALL: the pseudo-arena index meaning "all".
constexpr const char* purge_all_arenas = "arena.4096.purge";

} // namespace

void give_back_free_heap() {
  if (mallctl != nullptr && mallctl(purge_all_arenas, nullptr, nullptr,
                                    nullptr, 0) == 0)
    return;
  ::malloc_trim(0);
}

long long heap_in_use_bytes() {
  if (mallctl != nullptr) {
    // jemalloc's statistics are a snapshot taken when the epoch moves.
    uint64_t epoch = 1;
    size_t epoch_len = sizeof epoch;
    mallctl("epoch", &epoch, &epoch_len, &epoch, epoch_len);
    size_t allocated = 0;
    size_t len = sizeof allocated;
    if (mallctl("stats.allocated", &allocated, &len, nullptr, 0) == 0)
      return static_cast<long long>(allocated);
  }
  auto info = ::mallinfo2();
  return static_cast<long long>(info.uordblks + info.hblkhd);
}

const char* heap_allocator_name() {
  return mallctl != nullptr ? "jemalloc" : "glibc";
}

} // namespace nb
