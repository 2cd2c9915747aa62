#include "actors/router/memory_trim.hpp"

#include <fstream>
#include <memory>

#include <unistd.h>

#include <caf/atom.hpp>
#include <caf/send.hpp>

#include "actors/common/blocking_task.hpp"
#include "actors/common/heap.hpp"
#include "actors/common/timed_request.hpp"
#include "messages/stats.hpp"

namespace nb {

namespace {

using trim_atom = caf::atom_constant<caf::atom("nbtrim")>;
using every_atom = caf::atom_constant<caf::atom("nbtrimev")>;

/// Retirements arriving within this spell are trimmed for together.
constexpr auto quiet_spell = std::chrono::seconds(2);

/// This process's resident set in KB (0 when /proc cannot say).
int64_t resident_kb() {
  std::ifstream in{"/proc/self/statm"};
  int64_t size = 0, resident = 0;
  if (!(in >> size >> resident))
    return 0;
  return resident * (::sysconf(_SC_PAGESIZE) / 1024);
}

struct trim_totals {
  bool scheduled = false;
  bool trimming = false;
  int64_t returned_kb = 0;
};

/// Gives free heap back to the system; answers the KB returned.
int64_t trim_now() {
  auto before = resident_kb();
  give_back_free_heap();
  auto after = resident_kb();
  return before > after ? before - after : 0;
}

} // namespace

caf::behavior memory_trimmer(caf::event_based_actor* self, stats_actor stats,
                             std::chrono::seconds every) {
  auto totals = std::make_shared<trim_totals>();
  // The trimmer itself lives on the scheduler; malloc_trim and the /proc
  // reads run on a thread that exists only while they do.
  auto trim = [=] {
    if (totals->trimming)
      return;
    totals->trimming = true;
    timed_request(self, blocking_task(self, "nb.trim", trim_now),
                  std::chrono::seconds(60), caf::get_atom::value)
      .then(
        [=](int64_t returned_kb) {
          totals->trimming = false;
          totals->returned_kb += returned_kb;
          if (stats) {
            self->send(stats,
                       gauge_sample{"heap_returned_kb", totals->returned_kb});
            self->send(stats, gauge_sample{"heap_in_use_kb",
                                           heap_in_use_bytes() / 1024});
          }
        },
        [=](caf::error&) { totals->trimming = false; });
  };
  self->delayed_send(self, every, every_atom::value);
  return {
    [=](caf::tick_atom) {
      if (totals->scheduled)
        return;
      totals->scheduled = true;
      self->delayed_send(self, quiet_spell, trim_atom::value);
    },
    [=](trim_atom) {
      totals->scheduled = false;
      trim();
    },
    [=](every_atom) {
      trim();
      self->delayed_send(self, every, every_atom::value);
    },
  };
}

void note_freed(const caf::actor& trimmer) {
  if (trimmer)
    caf::anon_send(trimmer, caf::tick_atom::value);
}

} // namespace nb
