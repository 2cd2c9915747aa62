#include "actors/supervisor/config_watch.hpp"

#include <sys/stat.h>

#include <sstream>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/common/blocking_task.hpp"
#include "actors/common/clock.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/tools/side_files.hpp"
#include "config/inplace_save.hpp"

namespace nb {

namespace {

using config_tick_atom = caf::atom_constant<caf::atom("cfgtick")>;

/// Taken before main(): the running settings were read after it, so a file
/// modified since may be newer than they are (re-applying the same text is
/// harmless; missing an edit is not).
const int64_t config_watch_process_began_ms = unix_ms();

/// Inode, size and modification time: an editor's in-place write and a
/// save by rename both change it.
struct config_file_look {
  std::string stamp = "missing";
  int64_t modified_ms = 0;
};

config_file_look look_at_config_file(const std::string& path) {
  config_file_look out;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return out;
  std::ostringstream stamp;
  stamp << st.st_ino << ':' << st.st_size << ':' << st.st_mtim.tv_sec << '.'
        << st.st_mtim.tv_nsec;
  out.stamp = stamp.str();
  out.modified_ms = int64_t{st.st_mtim.tv_sec} * 1000
                    + st.st_mtim.tv_nsec / 1000000;
  return out;
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

void log_not_applied(config_watch_pointer self, const char* what,
                     const caf::error& err) {
  log::get("config")->error("{} changed; {} not applied (the running "
                            "settings stay): {}",
                            self->state.path, what,
                            self->system().render(err));
}

/// The last step of a change: the tools' settings.
void hand_on_tools(config_watch_pointer self, tools_config change) {
  timed_request(self, self->state.supervisor, std::chrono::seconds(15),
                std::move(change))
    .then(
      [self](caf::ok_atom) {
        log::get("config")->info("{} changed: its provider and tools "
                                 "settings apply from the next turn",
                                 self->state.path);
      },
      [self](caf::error& err) { log_not_applied(self, "its tools settings were", err); });
}

/// The tools' side files are read on a task's thread, as the WebUI's save
/// reads them on its worker.
void read_tools_then_hand_on(config_watch_pointer self,
                             const std::string& text) {
  auto read = blocking_task(self, "nb.cfg-watch",
                            [text, path = self->state.path] {
                              tools_config change;
                              change.config_json = text;
                              change.config_path = path;
                              read_tool_side_files(change);
                              return change;
                            });
  timed_request(self, read, std::chrono::seconds(15), caf::get_atom::value)
    .then([self](tools_config& change) { hand_on_tools(self, change); },
          [self](caf::error& err) { log_not_applied(self, "its tools settings were", err); });
}

/// Hands a changed text to the supervisor as a WebUI save does: the
/// provider first, then the tools; each refusal is logged with its reason.
void apply_changed_config(config_watch_pointer self, const std::string& text) {
  timed_request(self, self->state.supervisor, std::chrono::seconds(15),
                provider_config{text, self->state.path})
    .then([self, text](caf::ok_atom) { read_tools_then_hand_on(self, text); },
          [self](caf::error& err) { log_not_applied(self, "it was", err); });
}

/// One look at the file on a thread of its own: {} when its stamp is
/// unchanged, else {stamp, text, "edited" when it was written after the
/// running settings were read}.
void look_at_config(config_watch_pointer self) {
  auto& st = self->state;
  auto look = blocking_task(self, "nb.cfg-watch",
                            [path = st.path, seen = st.stamp,
                             began = config_watch_process_began_ms] {
                              std::vector<std::string> out;
                              auto file = look_at_config_file(path);
                              if (file.stamp == seen)
                                return out;
                              out.push_back(file.stamp);
                              out.push_back(file.stamp == "missing"
                                              ? std::string{}
                                              : read_config_text(path)
                                                  .value_or(std::string{}));
                              out.push_back(file.modified_ms >= began
                                              ? "edited" : "");
                              return out;
                            });
  timed_request(self, look, std::chrono::seconds(30), caf::get_atom::value)
    .then(
      [self](std::vector<std::string>& seen) {
        auto& st = self->state;
        schedule_next_look(self);
        if (seen.size() != 3)
          return;
        bool first = st.stamp.empty();
        st.stamp = seen[0];
        // The first look takes the file as the running settings unless it
        // was written after they were read (an edit in the gateway's first
        // second). A text already handed on (a WebUI save writes what it
        // applied) needs nothing; a deleted file keeps the running settings
        // until a new one appears.
        if (first && seen[2].empty()) {
          st.text = seen[1];
          return;
        }
        if (seen[1] == st.text || seen[0] == "missing")
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
