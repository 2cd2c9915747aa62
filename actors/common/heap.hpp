// Giving freed heap back to the system, whichever allocator the process runs
// on. The gateway links jemalloc (actors/app/allocator.cpp); test binaries and
// tools run on glibc's malloc. One call for both, so the trim points (the
// router's trimmer, the API and WebSocket servers after a large message) do
// not care which it is.
#pragma once

namespace nb {

/// Returns the free pages of every arena to the system: jemalloc's purge of
/// all arenas when jemalloc is the allocator, glibc's malloc_trim otherwise.
/// It takes a lock per arena: call it off the scheduler's threads.
void give_back_free_heap();

/// Bytes the program has allocated and not freed (what it uses, not what
/// the allocator holds): jemalloc's stats.allocated or glibc's mallinfo2.
long long heap_in_use_bytes();

/// "jemalloc" or "glibc": which allocator this process runs on.
const char* heap_allocator_name();

} // namespace nb
