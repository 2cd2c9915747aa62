#include "actors/store/session_store.hpp"

#include <caf/all.hpp>

#include "actors/common/blocking_task.hpp"
#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"
#include "actors/store/session_files.hpp"
#include "actors/store/sharded_front.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

using worker_ptr = store_worker_actor::stateful_pointer<store_worker_state>;

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

caf::result<session_snapshot> do_load(worker_ptr self, const std::string& key,
                                      bool conversation_only) {
  auto r = load_session(self->state.dir, key, conversation_only);
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

store_worker_actor::behavior_type
store_worker_impl(worker_ptr self, std::string dir, stats_actor stats) {
  name_thread("nb.store");
  self->state.dir = std::move(dir);
  self->state.log = log::get("store");
  self->state.meter.start(self, "store_worker", std::move(stats));
  return {
    [=](session_load& m) {
      auto t = self->state.meter.measure();
      return guarded<session_snapshot>(self, m.key, "load",
                                       [&] {
        return do_load(self, m.key, m.conversation_only);
      });
    },
    [=](session_append& m) {
      auto t = self->state.meter.measure();
      return guarded<caf::ok_atom>(self, m.key, "append", [&] {
        auto err = append_session(self->state.dir, m.key, m.messages,
                                  m.conversation_set ? &m.conversation
                                                     : nullptr);
        return done(self, m.key, "append", std::move(err));
      });
    },
    [=](session_replace& m) {
      auto t = self->state.meter.measure();
      return guarded<caf::ok_atom>(self, m.key, "replace", [&] {
        auto err = replace_session(self->state.dir, m.key, m.metadata_json,
                                   m.messages, m.keep,
                                   m.conversation_set ? &m.conversation
                                                      : nullptr);
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
    [=](store_retire_atom) {
      self->quit();
      return caf::ok_atom::value;
    },
  };
}

store_actor spawn_store(caf::actor_system& sys, const std::string& sessions_dir,
                        int workers, stats_actor stats,
                        std::chrono::milliseconds idle_limit) {
  // Workers start when their shard is first used: they keep copies.
  return spawn_sharded_front(
    sys, workers, stats,
    [sessions_dir, stats](caf::actor_system& s) {
      return spawn_blocking(s, store_worker_impl, sessions_dir, stats);
    },
    idle_limit);
}

} // namespace nb
