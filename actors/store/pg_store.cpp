#include "actors/store/pg_store.hpp"

#include <caf/all.hpp>

#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"
#include "actors/store/pg_sessions.hpp"
#include "actors/store/session_files.hpp"
#include "actors/store/sharded_front.hpp"
#include "messages/errc.hpp"
#include "messages/session_admin.hpp"

namespace nb {

namespace {

using worker_ptr = store_worker_actor::stateful_pointer<pg_worker_state>;

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

store_worker_actor::behavior_type
pg_worker_impl(worker_ptr self, std::string dsn, stats_actor stats) {
  name_thread("nb.store");
  self->state.db = std::make_unique<pg_connection>(std::move(dsn));
  self->state.log = log::get("store");
  self->state.meter.start(self, "store_worker", std::move(stats));
  return {
    [=](session_load& m) {
      auto t = self->state.meter.measure();
      return run<session_snapshot>(self, m.key, "load", [&](pg_connection& db)
                                     -> caf::result<session_snapshot> {
        auto r = pg_load_session(db, m.key, m.conversation_only);
        if (!r)
          return report(self, m.key, "load", std::move(r.error()));
        return std::move(*r);
      });
    },
    [=](session_append& m) {
      auto t = self->state.meter.measure();
      return run<caf::ok_atom>(self, m.key, "append", [&](pg_connection& db) {
        return done(self, m.key, "append",
                    pg_append_session(db, m.key, m.messages,
                                      m.conversation_set ? &m.conversation
                                                         : nullptr));
      });
    },
    [=](session_replace& m) {
      auto t = self->state.meter.measure();
      return run<caf::ok_atom>(self, m.key, "replace", [&](pg_connection& db) {
        return done(self, m.key, "replace",
                    pg_replace_session(db, m.key, m.metadata_json,
                                       m.messages, m.keep,
                                       m.conversation_set ? &m.conversation
                                                          : nullptr));
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
    [=](session_catalog_request& m) {
      auto t = self->state.meter.measure();
      return run<session_catalog>(
        self, "*", "catalog",
        [&](pg_connection& db) -> caf::result<session_catalog> {
          auto r = pg_catalog_sessions(db, m.limit);
          if (!r)
            return report(self, "*", "catalog", std::move(r.error()));
          return std::move(*r);
        });
    },
    [=](session_patch& m) {
      auto t = self->state.meter.measure();
      return run<caf::ok_atom>(self, m.key, "patch", [&](pg_connection& db) {
        return done(self, m.key, "patch",
                    pg_patch_session_meta(db, m.key, m.patch_json));
      });
    },
    [=](session_remove& m) {
      auto t = self->state.meter.measure();
      return run<caf::ok_atom>(self, m.key, "remove", [&](pg_connection& db) {
        return done(self, m.key, "remove", pg_remove_session(db, m.key));
      });
    },
    // Its connection closes with it.
    [=](store_retire_atom) {
      self->quit();
      return caf::ok_atom::value;
    },
  };
}

} // namespace

store_actor spawn_pg_store(caf::actor_system& sys, const std::string& dsn,
                           int workers, stats_actor stats) {
  // Workers start when their shard is first used: they keep copies.
  return spawn_sharded_front(
    sys, workers, stats, [dsn, stats](caf::actor_system& s) {
      return s.spawn<caf::detached>(pg_worker_impl, dsn, stats);
    });
}

} // namespace nb
