#include "actors/supervisor/config_watch.hpp"

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/common/blocking_task.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/tools/side_files.hpp"

namespace nb {

namespace {

using config_tick_atom = caf::atom_constant<caf::atom("cfgtick")>;

/// Inode, size and modification time: an editor's in-place write and a
/// save by rename both change it.
std::string config_file_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return "missing";
  std::ostringstream out;
  out << st.st_ino << ':' << st.st_size << ':' << st.st_mtim.tv_sec << '.'
      << st.st_mtim.tv_nsec;
  return out.str();
}

std::string config_file_text(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct config_watch_state {
  // Declared: CAF 0.17 would otherwise try to build the state from the
  // actor's pointer (aggregate initialisation).
  config_watch_state() = default;
  std::string path;
  std::chrono::milliseconds interval{};
  supervisor_admin_actor supervisor;
  std::string stamp; ///< the file as last seen
  std::string text;  ///< the text last handed on (or found at start)
};

using config_watch_pointer = caf::stateful_actor<config_watch_state>*;

void schedule_next_look(config_watch_pointer self) {
  self->delayed_send(self, self->state.interval, config_tick_atom::value);
}

/// Hands a changed text to the supervisor as a WebUI save does: the
/// provider first, then the tools (their side files read on a task's
/// thread); each refusal is logged with its reason.
void apply_changed_config(config_watch_pointer self, const std::string& text) {
  auto lg = log::get("config");
  auto& st = self->state;
  timed_request(self, st.supervisor, std::chrono::seconds(15),
                provider_config{text, st.path})
    .then(
      [self, text](caf::ok_atom) {
        auto path = self->state.path;
        auto read = blocking_task(self, "nb.cfg-watch", [text, path] {
          tools_config change;
          change.config_json = text;
          change.config_path = path;
          read_tool_side_files(change);
          return change;
        });
        timed_request(self, read, std::chrono::seconds(15),
                      caf::get_atom::value)
          .then(
            [self](tools_config& change) {
              timed_request(self, self->state.supervisor,
                            std::chrono::seconds(15), std::move(change))
                .then(
                  [self](caf::ok_atom) {
                    log::get("config")->info(
                      "{} changed: its provider and tools settings apply "
                      "from the next turn",
                      self->state.path);
                  },
                  [self](caf::error& err) {
                    log::get("config")->error(
                      "{} changed; its tools settings were not applied: {}",
                      self->state.path, self->system().render(err));
                  });
            },
            [self](caf::error& err) {
              log::get("config")->error("{}: {}", self->state.path,
                                        self->system().render(err));
            });
      },
      [self, lg](caf::error& err) {
        lg->error("{} changed but was not applied (the running settings "
                  "stay): {}",
                  self->state.path, self->system().render(err));
      });
}

/// One look at the file on a thread of its own: {} when its stamp is
/// unchanged, else {stamp, text}.
void look_at_config(config_watch_pointer self) {
  auto& st = self->state;
  auto look = blocking_task(self, "nb.cfg-watch",
                            [path = st.path, seen = st.stamp] {
                              std::vector<std::string> out;
                              auto stamp = config_file_stamp(path);
                              if (stamp == seen)
                                return out;
                              out.push_back(stamp);
                              out.push_back(stamp == "missing"
                                              ? std::string{}
                                              : config_file_text(path));
                              return out;
                            });
  timed_request(self, look, std::chrono::seconds(30), caf::get_atom::value)
    .then(
      [self](std::vector<std::string>& seen) {
        auto& st = self->state;
        schedule_next_look(self);
        if (seen.size() != 2)
          return;
        bool first = st.stamp.empty();
        st.stamp = seen[0];
        // At start, and for a text already handed on (a WebUI save writes
        // what it applied), there is nothing to do; a deleted file keeps
        // the running settings until a new one appears.
        if (first)
          st.text = seen[1];
        if (first || seen[1] == st.text || seen[0] == "missing")
          return;
        st.text = seen[1];
        apply_changed_config(self, st.text);
      },
      [self](caf::error& err) {
        log::get("config")->warn("could not look at {}: {}", self->state.path,
                                 self->system().render(err));
        schedule_next_look(self);
      });
}

caf::behavior config_watch_impl(config_watch_pointer self,
                                supervisor_admin_actor supervisor,
                                std::string path,
                                std::chrono::milliseconds interval) {
  auto& st = self->state;
  st.supervisor = std::move(supervisor);
  st.path = std::move(path);
  st.interval = interval;
  look_at_config(self); // the start's stamp and text
  return {
    guard("config", [self](config_tick_atom) { look_at_config(self); }),
  };
}

} // namespace

caf::actor spawn_config_watch(caf::actor_system& sys,
                              supervisor_admin_actor supervisor,
                              std::string config_path,
                              std::chrono::milliseconds interval) {
  return sys.spawn(config_watch_impl, std::move(supervisor),
                   std::move(config_path), interval);
}

} // namespace nb
