#include "actors/store/sharded_front.hpp"

#include <functional>

#include <caf/all.hpp>

namespace nb {

namespace {

using front_ptr = store_admin_actor::stateful_pointer<sharded_front_state>;

const store_admin_actor& route(front_ptr self, const std::string& key) {
  auto& ws = self->state.workers;
  return ws[std::hash<std::string>{}(key) % ws.size()];
}

} // namespace

store_admin_actor::behavior_type
sharded_front_impl(front_ptr self, std::vector<store_admin_actor> workers,
                   stats_actor stats) {
  self->state.workers = std::move(workers);
  self->state.meter.start(self, "store", std::move(stats));
  // A detached worker's thread keeps it alive, so the front must stop it.
  self->attach_functor([ws = self->state.workers](const caf::error&) {
    for (auto& w : ws)
      caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  });
  return {
    [=](session_load& m) {
      auto t = self->state.meter.measure();
      return self->delegate(route(self, m.key), std::move(m));
    },
    [=](session_append& m) {
      auto t = self->state.meter.measure();
      return self->delegate(route(self, m.key), std::move(m));
    },
    [=](session_replace& m) {
      auto t = self->state.meter.measure();
      return self->delegate(route(self, m.key), std::move(m));
    },
    [=](session_list& m) {
      auto t = self->state.meter.measure();
      return self->delegate(self->state.workers.front(), std::move(m));
    },
    [=](session_catalog_request& m) {
      auto t = self->state.meter.measure();
      return self->delegate(self->state.workers.front(), std::move(m));
    },
    // By key, like every write: in order with that session's own writes.
    [=](session_patch& m) {
      auto t = self->state.meter.measure();
      return self->delegate(route(self, m.key), std::move(m));
    },
    [=](session_remove& m) {
      auto t = self->state.meter.measure();
      return self->delegate(route(self, m.key), std::move(m));
    },
  };
}

} // namespace nb
