#include "actors/supervisor/heap_trim.hpp"

#include <fstream>

#include <malloc.h>
#include <unistd.h>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "messages/stats.hpp"

namespace nb {

namespace {

/// This process's resident set in KB (0 when /proc cannot say).
int64_t resident_kb() {
  std::ifstream in{"/proc/self/statm"};
  int64_t size = 0, resident = 0;
  if (!(in >> size >> resident))
    return 0;
  return resident * (::sysconf(_SC_PAGESIZE) / 1024);
}

struct trim_state {
  trim_state() = default;
  static inline const char* name = "heap_trim";
  int64_t returned_kb = 0;
};

using trim_pointer = heap_trim_actor::stateful_pointer<trim_state>;

heap_trim_actor::behavior_type trim_impl(trim_pointer self, stats_actor stats,
                                         std::chrono::seconds every) {
  self->delayed_send(self, every, caf::tick_atom::value);
  return {
    [=](caf::tick_atom) {
      auto before = resident_kb();
      ::malloc_trim(0);
      auto after = resident_kb();
      if (before > after)
        self->state.returned_kb += before - after;
      if (stats)
        self->send(stats,
                   gauge_sample{"heap_returned_kb", self->state.returned_kb});
      self->delayed_send(self, every, caf::tick_atom::value);
    },
  };
}

} // namespace

heap_trim_actor spawn_heap_trim(caf::actor_system& sys, stats_actor stats,
                                std::chrono::seconds every) {
  return sys.spawn<caf::detached>(trim_impl, std::move(stats), every);
}

} // namespace nb
