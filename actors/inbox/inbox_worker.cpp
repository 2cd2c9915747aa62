#include "actors/inbox/inbox_worker.hpp"

#include <memory>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/thread_name.hpp"
#include "actors/inbox/journal_file.hpp"

namespace nb::inbox {

namespace {

struct worker_state {
  worker_state() = default;
  static inline const char* name = "inbox_worker";
  std::string dir;
  std::shared_ptr<journal_file> file; ///< lent by the inbox
};

using worker_pointer = worker_actor::stateful_pointer<worker_state>;

worker_actor::behavior_type worker_impl(worker_pointer self, std::string dir,
                                        std::shared_ptr<journal_file> file) {
  name_thread("nb.inbox");
  self->state.dir = std::move(dir);
  self->state.file = std::move(file);
  return {
    [self](open_atom)
      -> caf::result<std::string, std::string, std::vector<std::string>,
                     std::vector<std::string>> {
      auto& file = *self->state.file;
      auto bytes = file.open(self->state.dir);
      if (!bytes)
        return bytes.error();
      auto orphans = file.adopt_orphans();
      if (!orphans)
        return orphans.error();
      std::vector<std::string> paths, contents;
      for (auto& o : *orphans) {
        paths.push_back(std::move(o.path));
        contents.push_back(std::move(o.bytes));
      }
      return {std::move(*bytes), file.path(), std::move(paths),
              std::move(contents)};
    },
    [self](write_atom, const std::string& bytes,
           bool sync) -> caf::result<int64_t> {
      if (auto err = self->state.file->append(bytes, sync))
        return err;
      return self->state.file->size();
    },
    [self](compact_atom, const std::string& bytes) -> caf::result<int64_t> {
      auto& file = *self->state.file;
      if (auto err = file.replace(bytes))
        return err;
      if (file.has_orphans())
        if (auto err = file.retire_orphans())
          return err;
      return file.size();
    },
    [self](keep_atom, const std::string& name,
           const std::string& line) -> caf::result<caf::ok_atom> {
      if (auto err = self->state.file->keep(name, line))
        return err;
      return caf::ok_atom::value;
    },
    [self](retire_atom) { self->quit(); },
  };
}

} // namespace

worker_actor spawn_worker(caf::actor_system& sys, std::string dir,
                          std::shared_ptr<journal_file> file) {
  return sys.spawn<caf::detached>(worker_impl, std::move(dir),
                                  std::move(file));
}

} // namespace nb::inbox
