#include "actors/inbox/inbox_worker.hpp"

#include <memory>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/inbox/journal_file.hpp"

namespace nb::inbox {

namespace {

struct worker_state {
  worker_state() = default;
  static inline const char* name = "inbox_worker";
  std::string dir;
  std::unique_ptr<journal_file> file;
};

using worker_pointer = worker_actor::stateful_pointer<worker_state>;

worker_actor::behavior_type worker_impl(worker_pointer self, std::string dir) {
  self->state.dir = std::move(dir);
  self->state.file = std::make_unique<journal_file>();
  return {
    [self](open_atom) -> caf::result<std::string, std::string> {
      auto bytes = self->state.file->open(self->state.dir);
      if (!bytes)
        return bytes.error();
      return {std::move(*bytes), self->state.file->path()};
    },
    [self](write_atom, const std::string& bytes,
           bool sync) -> caf::result<int64_t> {
      if (auto err = self->state.file->append(bytes, sync))
        return err;
      return self->state.file->size();
    },
    [self](compact_atom, const std::string& bytes) -> caf::result<int64_t> {
      if (auto err = self->state.file->replace(bytes))
        return err;
      return self->state.file->size();
    },
    [self](keep_atom, const std::string& name,
           const std::string& line) -> caf::result<caf::ok_atom> {
      if (auto err = self->state.file->keep(name, line))
        return err;
      return caf::ok_atom::value;
    },
  };
}

} // namespace

worker_actor spawn_worker(caf::actor_system& sys, std::string dir) {
  return sys.spawn<caf::detached>(worker_impl, std::move(dir));
}

} // namespace nb::inbox
