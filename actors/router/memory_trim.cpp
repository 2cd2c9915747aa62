#include "actors/router/memory_trim.hpp"

#include <fstream>
#include <memory>

#include <unistd.h>

#include <caf/atom.hpp>
#include <caf/send.hpp>

#include "actors/common/heap.hpp"
#include "actors/common/thread_name.hpp"
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
  int64_t returned_kb = 0;
};

} // namespace

caf::behavior memory_trimmer(caf::event_based_actor* self, stats_actor stats,
                             std::chrono::seconds every) {
  name_thread("nb.trim");
  auto totals = std::make_shared<trim_totals>();
  auto trim = [=] {
    auto before = resident_kb();
    give_back_free_heap();
    auto after = resident_kb();
    if (before > after)
      totals->returned_kb += before - after;
    if (stats) {
      self->send(stats, gauge_sample{"heap_returned_kb", totals->returned_kb});
      self->send(stats,
                 gauge_sample{"heap_in_use_kb", heap_in_use_bytes() / 1024});
    }
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
