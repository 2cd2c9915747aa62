// <config-dir>/pairing.json, read and written on short-lived threads
// (actors/common/blocking_task.hpp): reads and atomic replaces never block
// the manager's scheduler thread, and between writes no thread is held for
// the file. One write at a time, the newest approvals last.
#include <chrono>

#include "actors/channels/manager/manager.hpp"
#include "actors/common/blocking_task.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace {

constexpr auto file_timeout = std::chrono::seconds(30);

std::string pairing_path(const channel_manager_state& st) {
  return st.cfg.config_dir() + "/pairing.json";
}

/// Writes the newest unsaved approvals unless a write is under way (its end
/// comes back here).
void write_pending(channel_manager_pointer self) {
  auto& st = self->state;
  if (st.pairing_writing || !st.pairing_unsaved)
    return;
  st.pairing_writing = true;
  auto text = std::move(*st.pairing_unsaved);
  st.pairing_unsaved.reset();
  auto written = [self](const std::string& error) {
    if (!error.empty())
      log::get("channels")->error("pairing approvals not saved: {}", error);
    self->state.pairing_writing = false;
    write_pending(self);
  };
  timed_request(self,
                blocking_task(self, "nb.pairing",
                              [path = pairing_path(st), text] {
                                auto res = replace_file_atomic(path, text,
                                                               0600);
                                return res.outcome == write_outcome::failed
                                         ? res.error
                                         : std::string{};
                              }),
                file_timeout, caf::get_atom::value)
    .then([=](std::string& error) { written(error); },
          [=](caf::error& err) { written(self->system().render(err)); });
}

} // namespace

void load_pairing(channel_manager_pointer self, std::function<void()> then) {
  // Nothing is handled before the approvals are known (await keeps the
  // mailbox waiting).
  timed_request(self,
                blocking_task(self, "nb.pairing",
                              [path = pairing_path(self->state)] {
                                return load_pairing_book(path).to_json();
                              }),
                file_timeout, caf::get_atom::value)
    .await(
      [self, then](std::string& text) {
        if (auto book = pairing_book::from_json(text))
          self->state.pairing = std::move(*book);
        then();
      },
      [self, then](caf::error& err) {
        log::get("channels")->error("pairing approvals not loaded: {}",
                                    self->system().render(err));
        then();
      });
}

void save_pairing(channel_manager_pointer self) {
  self->state.pairing_unsaved = self->state.pairing.to_json();
  write_pending(self);
}

} // namespace nb
