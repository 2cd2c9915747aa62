#include "actors/stats/stats.hpp"

#include <caf/all.hpp>

#include "actors/stats/figures.hpp"
#include "actors/stats/render.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

struct stats_state {
  stats_state() = default;
  static inline const char* name = "stats";
  stats_figures figures;
};

using stats_pointer = stats_actor::stateful_pointer<stats_state>;

stats_actor::behavior_type stats_impl(stats_pointer self) {
  // The stats actor does not meter itself: its own samples would feed back
  // into its mailbox forever.
  return {
    [self](const actor_sample& s) { add_sample(self->state.figures, s); },
    [self](const turn_sample& s) { add_sample(self->state.figures, s); },
    [self](const provider_sample& s) { add_sample(self->state.figures, s); },
    [self](const tool_sample& s) { add_sample(self->state.figures, s); },
    [self](const gauge_sample& s) { add_sample(self->state.figures, s); },
    [self](stats_atom, const std::string& format) -> caf::result<std::string> {
      if (format == "json")
        return render_json(self->state.figures, read_process_figures());
      if (format == "prometheus")
        return render_prometheus(self->state.figures, read_process_figures());
      return caf::make_error(errc::invalid_arguments,
                             "unknown stats format '" + format
                               + "' (use json or prometheus)");
    },
  };
}

} // namespace

stats_actor spawn_stats(caf::actor_system& sys) {
  return sys.spawn(stats_impl);
}

} // namespace nb
