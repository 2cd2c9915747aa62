#include "actors/store/session_store.hpp"

#include <algorithm>
#include <functional>

#include <caf/all.hpp>

#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"
#include "actors/store/session_files.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

using front_ptr = store_admin_actor::stateful_pointer<store_state>;
using worker_ptr = store_admin_actor::stateful_pointer<store_worker_state>;

const store_admin_actor& route(front_ptr self, const std::string& key) {
  auto& ws = self->state.workers;
  return ws[std::hash<std::string>{}(key) % ws.size()];
}

caf::error report(worker_ptr self, const std::string& key, const char* op,
                  caf::error err) {
  self->state.meter.failed();
  self->state.log->error("[{}] {}: {}", key, op, store_error_text(err));
  return err;
}

// The file functions return every failure as a value; this also turns the
// one-in-a-million bad_alloc into a failed request instead of a dead worker.
template <class T, class F>
caf::result<T> guarded(worker_ptr self, const std::string& key,
                       const char* op, F f) {
  try {
    return f();
  } catch (const std::exception& ex) {
    return report(self, key, op,
                  caf::make_error(errc::store_failed,
                                  std::string{op} + " failed: " + ex.what()));
  }
}

caf::result<session_snapshot> do_load(worker_ptr self, const std::string& key) {
  auto r = load_session(self->state.dir, key);
  if (!r)
    return report(self, key, "load", std::move(r.error()));
  if (r->skipped_lines > 0)
    self->state.log->warn("[{}] {} corrupt line(s) skipped in {} (left on "
                          "disk)",
                          key, r->skipped_lines, session_file_name(key));
  return std::move(*r);
}

caf::result<caf::ok_atom> done(worker_ptr self, const std::string& key,
                               const char* op, caf::error err) {
  if (err)
    return report(self, key, op, std::move(err));
  return caf::ok_atom::value;
}

} // namespace

store_admin_actor::behavior_type
store_worker_impl(worker_ptr self, std::string dir, stats_actor stats) {
  name_thread("nb.store");
  self->state.dir = std::move(dir);
  self->state.log = log::get("store");
  self->state.meter.start(self, "store_worker", std::move(stats));
  return {
    [=](session_load& m) {
      auto t = self->state.meter.measure();
      return guarded<session_snapshot>(self, m.key, "load",
                                       [&] { return do_load(self, m.key); });
    },
    [=](session_append& m) {
      auto t = self->state.meter.measure();
      return guarded<caf::ok_atom>(self, m.key, "append", [&] {
        auto err = append_session(self->state.dir, m.key, m.messages);
        return done(self, m.key, "append", std::move(err));
      });
    },
    [=](session_replace& m) {
      auto t = self->state.meter.measure();
      return guarded<caf::ok_atom>(self, m.key, "replace", [&] {
        auto err = replace_session(self->state.dir, m.key, m.metadata_json,
                                   m.messages, m.keep);
        return done(self, m.key, "replace", std::move(err));
      });
    },
    [=](session_list& m) {
      auto t = self->state.meter.measure();
      return guarded<session_listing>(self, "*", "list", [&] {
        return caf::result<session_listing>{
          list_sessions(self->state.dir, m.limit, true)};
      });
    },
    [=](session_catalog_request& m) {
      auto t = self->state.meter.measure();
      return guarded<session_catalog>(self, "*", "catalog", [&] {
        return caf::result<session_catalog>{
          catalog_sessions(self->state.dir, m.limit)};
      });
    },
    [=](session_patch& m) {
      auto t = self->state.meter.measure();
      return guarded<caf::ok_atom>(self, m.key, "patch", [&] {
        auto err = patch_session_meta(self->state.dir, m.key, m.patch_json);
        return done(self, m.key, "patch", std::move(err));
      });
    },
    [=](session_remove& m) {
      auto t = self->state.meter.measure();
      return guarded<caf::ok_atom>(self, m.key, "remove", [&] {
        auto err = remove_session(self->state.dir, m.key);
        return done(self, m.key, "remove", std::move(err));
      });
    },
  };
}

store_admin_actor::behavior_type store_impl(front_ptr self, std::string dir,
                                      int workers, stats_actor stats) {
  self->state.meter.start(self, "store", stats);
  for (int i = 0; i < std::max(workers, 1); ++i)
    self->state.workers.push_back(
      self->spawn<caf::detached>(store_worker_impl, dir, stats));
  // A detached worker's thread keeps it alive, so the front must stop it.
  self->attach_functor([ws = self->state.workers](const caf::error&) {
    for (auto& w : ws)
      caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  });
  return {
    [=](session_load& m) {
      auto t = self->state.meter.measure();
      auto& w = route(self, m.key);
      return self->delegate(w, std::move(m));
    },
    [=](session_append& m) {
      auto t = self->state.meter.measure();
      auto& w = route(self, m.key);
      return self->delegate(w, std::move(m));
    },
    [=](session_replace& m) {
      auto t = self->state.meter.measure();
      auto& w = route(self, m.key);
      return self->delegate(w, std::move(m));
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
      auto& w = route(self, m.key);
      return self->delegate(w, std::move(m));
    },
    [=](session_remove& m) {
      auto t = self->state.meter.measure();
      auto& w = route(self, m.key);
      return self->delegate(w, std::move(m));
    },
  };
}

store_actor spawn_store(caf::actor_system& sys,
                        const std::string& sessions_dir, int workers,
                        stats_actor stats) {
  return sys.spawn(store_impl, sessions_dir, workers, std::move(stats));
}

} // namespace nb
