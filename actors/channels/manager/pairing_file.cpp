// The pairing file's own thread: reads and atomic replaces never block the
// manager's scheduler thread.
#include <fstream>
#include <sstream>

#include <caf/event_based_actor.hpp>

#include "actors/channels/manager/manager.hpp"
#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace {

pairing_file_actor::behavior_type pairing_file_impl(std::string path) {
  name_thread("nb.pairing");
  return {
    [path](caf::get_atom) -> std::string {
      return load_pairing_book(path).to_json();
    },
    [path](caf::put_atom, const std::string& text) {
      auto res = replace_file_atomic(path, text, 0600);
      if (res.outcome == write_outcome::failed)
        log::get("channels")->error("pairing approvals not saved: {}",
                                    res.error);
    },
  };
}

} // namespace

pairing_file_actor spawn_pairing_file(caf::actor_system& sys,
                                      std::string path) {
  return sys.spawn<caf::detached>(pairing_file_impl, std::move(path));
}

} // namespace nb
