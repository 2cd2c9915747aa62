#include "actors/store/pg_store.hpp"

#include <functional>

#include <caf/all.hpp>

#include "actors/common/log.hpp"
#include "actors/store/pg_sessions.hpp"
#include "actors/store/session_files.hpp"
#include "messages/errc.hpp"
#include "messages/session_admin.hpp"

namespace nb {

namespace {

using front_ptr = store_admin_actor::stateful_pointer<pg_store_state>;
using worker_ptr = store_actor::stateful_pointer<pg_worker_state>;

caf::error report(worker_ptr self, const std::string& key, const char* op,
                  caf::error err) {
  self->state.meter.failed();
  self->state.log->error("[{}] {}: {}", key, op, store_error_text(err));
  return err;
}

/// Runs `f` once the schema exists; turns an escaped exception into a
/// failed request rather than a dead worker.
template <class T, class F>
caf::result<T> run(worker_ptr self, const std::string& key, const char* op,
                   F f) {
  try {
    auto& st = self->state;
    if (!st.schema_ready) {
      if (auto err = pg_ensure_schema(*st.db))
        return report(self, key, op, std::move(err));
      st.schema_ready = true;
    }
    return f(*st.db);
  } catch (const std::exception& ex) {
    return report(self, key, op,
                  caf::make_error(errc::store_failed,
                                  std::string{op} + " failed: " + ex.what()));
  }
}

caf::result<caf::ok_atom> done(worker_ptr self, const std::string& key,
                               const char* op, caf::error err) {
  if (err)
    return report(self, key, op, std::move(err));
  return caf::ok_atom::value;
}

store_actor::behavior_type pg_worker_impl(worker_ptr self, std::string dsn,
                                          stats_actor stats) {
  self->state.db = std::make_unique<pg_connection>(std::move(dsn));
  self->state.log = log::get("store");
  self->state.meter.start(self, "store_worker", std::move(stats));
  return {
    [=](session_load& m) {
      auto t = self->state.meter.measure();
      return run<session_snapshot>(self, m.key, "load", [&](pg_connection& db)
                                     -> caf::result<session_snapshot> {
        auto r = pg_load_session(db, m.key);
        if (!r)
          return report(self, m.key, "load", std::move(r.error()));
        return std::move(*r);
      });
    },
    [=](session_append& m) {
      auto t = self->state.meter.measure();
      return run<caf::ok_atom>(self, m.key, "append", [&](pg_connection& db) {
        return done(self, m.key, "append",
                    pg_append_session(db, m.key, m.messages));
      });
    },
    [=](session_replace& m) {
      auto t = self->state.meter.measure();
      return run<caf::ok_atom>(self, m.key, "replace", [&](pg_connection& db) {
        return done(self, m.key, "replace",
                    pg_replace_session(db, m.key, m.metadata_json,
                                       m.messages, m.keep));
      });
    },
    [=](session_list& m) {
      auto t = self->state.meter.measure();
      return run<session_listing>(self, "*", "list", [&](pg_connection& db)
                                    -> caf::result<session_listing> {
        auto r = pg_list_sessions(db, m.limit);
        if (!r)
          return report(self, "*", "list", std::move(r.error()));
        return std::move(*r);
      });
    },
  };
}

caf::error not_yet(const std::string& what) {
  return caf::make_error(errc::store_failed,
                         what + " is not supported by the PostgreSQL "
                                "session store yet");
}

const store_actor& route(front_ptr self, const std::string& key) {
  auto& ws = self->state.workers;
  return ws[std::hash<std::string>{}(key) % ws.size()];
}

store_admin_actor::behavior_type pg_front_impl(front_ptr self, std::string dsn,
                                         int workers, stats_actor stats) {
  self->state.meter.start(self, "store", stats);
  for (int i = 0; i < std::max(workers, 1); ++i)
    self->state.workers.push_back(
      self->spawn<caf::detached>(pg_worker_impl, dsn, stats));
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
    // The WebUI's sessions page works on the file store only so far.
    [=](session_catalog_request&) -> caf::result<session_catalog> {
      return not_yet("listing sessions for the WebUI");
    },
    [=](session_patch&) -> caf::result<caf::ok_atom> {
      return not_yet("renaming or archiving a session");
    },
    [=](session_remove&) -> caf::result<caf::ok_atom> {
      return not_yet("deleting a session");
    },
  };
}

} // namespace

store_actor spawn_pg_store(caf::actor_system& sys, const std::string& dsn,
                           int workers, stats_actor stats) {
  return sys.spawn(pg_front_impl, dsn, workers, std::move(stats));
}

} // namespace nb
