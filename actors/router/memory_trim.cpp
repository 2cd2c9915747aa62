#include "actors/router/memory_trim.hpp"

#include <chrono>
#include <memory>

#include <malloc.h>

#include <caf/atom.hpp>
#include <caf/send.hpp>

namespace nb {

namespace {

using trim_atom = caf::atom_constant<caf::atom("nbtrim")>;

/// Retirements arriving within this spell are trimmed for together.
constexpr auto quiet_spell = std::chrono::seconds(2);

} // namespace

caf::behavior memory_trimmer(caf::event_based_actor* self) {
  auto scheduled = std::make_shared<bool>(false);
  return {
    [=](caf::tick_atom) {
      if (*scheduled)
        return;
      *scheduled = true;
      self->delayed_send(self, quiet_spell, trim_atom::value);
    },
    [=](trim_atom) {
      *scheduled = false;
      ::malloc_trim(0);
    },
  };
}

void note_freed(const caf::actor& trimmer) {
  if (trimmer)
    caf::anon_send(trimmer, caf::tick_atom::value);
}

} // namespace nb
