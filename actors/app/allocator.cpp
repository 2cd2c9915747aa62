// The gateway's allocator settings. The gateway runs for months with memory
// moving between CAF's workers and the detached workers; on glibc's malloc
// its resident set grew by a third over a 45-minute soak while the memory in
// use stayed flat (free pages stranded in per-thread arenas, which
// malloc_trim only partly returns). jemalloc (Debian's libjemalloc2) keeps
// size classes in slabs and purges unused pages on a decay clock.
//
// jemalloc reads this string at its first allocation:
// - narenas:2 — two arenas for the whole process (the default is four per
//   core): fewer arenas, fewer stranded pages; two cores rarely contend.
// - dirty_decay_ms:2000 — freed pages go back within about two seconds of
//   allocator activity (the trimmer's periodic purge covers an idle gateway).
// - muzzy_decay_ms:0 — give pages back with MADV_DONTNEED, not MADV_FREE:
//   MADV_FREE'd pages still count in RSS until the kernel needs them, which
//   is exactly what a user watching `top` sees as a leak.
// - tcache:false — no per-thread caches. An idle thread keeps its cache for
//   ever, and the gateway has dozens of threads: after 10 000 sessions had
//   quit, 52 MB sat in thread caches (counted as in use) against 6 MB of
//   live data, RSS 125 MB; without them RSS fell to 48 MB, the peak from
//   153 to 102 MB, at the same throughput (tests/soak/load.sh).
extern "C" {
__attribute__((used)) const char* malloc_conf
  = "narenas:2,dirty_decay_ms:2000,muzzy_decay_ms:0,tcache:false";
}
