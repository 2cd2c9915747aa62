#include "actors/store/memory_store.hpp"

#include <algorithm>
#include <chrono>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <nlohmann/json.hpp>

#include "actors/common/blocking_task.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/store/session_conversation.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

using memory_store_ptr =
  store_admin_actor::stateful_pointer<memory_store_state>;
using held_session = memory_store_state::held;

/// A write's effect on the saved state, as the file store's: `set` replaces
/// it (no record: none); otherwise it is carried while the messages it
/// covers stay (`old_tail`: the held ones after the kept ones).
void memory_store_write_state(held_session& held,
                              const std::vector<std::string>& old_tail,
                              const std::vector<std::string>& messages,
                              bool set, const conversation_state& state) {
  if (set) {
    held.state_line = session_format::conversation_line(state);
    if (!held.state_line.empty())
      held.state_line.pop_back();
    held.state_after.clear();
    return;
  }
  if (held.state_line.empty())
    return;
  auto after = session_format::messages_after_state(old_tail, messages);
  if (!after) {
    held.state_line.clear();
    held.state_after.clear();
    return;
  }
  held.state_after.insert(held.state_after.end(), after->begin(),
                          after->end());
}

/// A turn's read of the saved state: the line with the messages since
/// added to its pending ones. Attached images are read from their files,
/// so then on a thread of its own.
caf::result<session_snapshot> memory_store_state_read(memory_store_ptr self,
                                                      session_snapshot out,
                                                      const held_session& held) {
  out.has_conversation = !held.state_line.empty();
  auto read = [line = held.state_line, after = held.state_after,
               out]() mutable {
    out.conversation = session_format::conversation_of_line(
      session_format::state_line_continued(line, std::move(after)));
    return out;
  };
  bool images = std::any_of(held.state_after.begin(), held.state_after.end(),
                            [](const std::string& m) {
                              return m.find("\"media\"") != std::string::npos;
                            });
  if (!images)
    return read();
  auto rp = self->make_response_promise<session_snapshot>();
  timed_request(self, blocking_task(self, "nb.mem-state", std::move(read)),
                std::chrono::seconds(30), caf::get_atom::value)
    .then([rp](session_snapshot& snap) mutable { rp.deliver(std::move(snap)); },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

} // namespace

store_admin_actor::behavior_type memory_store_impl(
  store_admin_actor::stateful_pointer<memory_store_state> self) {
  return {
    [=](session_load& m) -> caf::result<session_snapshot> {
      session_snapshot out;
      out.key = m.key;
      auto& all = self->state.sessions;
      if (auto i = all.find(m.key); i != all.end()) {
        out.existed = true;
        if (m.conversation_only)
          return memory_store_state_read(self, std::move(out), i->second);
        out.has_conversation = !i->second.state_line.empty();
        out.metadata_json = i->second.metadata_json;
        out.messages = i->second.messages;
      }
      return out;
    },
    [=](session_append& m) {
      auto& held = self->state.sessions[m.key];
      memory_store_write_state(held, {}, m.messages, m.conversation_set,
                               m.conversation);
      for (auto& text : m.messages)
        held.messages.push_back(std::move(text));
      return caf::ok_atom::value;
    },
    [=](session_replace& m) -> caf::result<caf::ok_atom> {
      auto& held = self->state.sessions[m.key];
      if (held.messages.size() < m.keep)
        return caf::make_error(errc::store_failed,
                               "temporary chat " + m.key + " holds fewer "
                               "messages than the rewrite keeps");
      memory_store_write_state(
        held, {held.messages.begin() + m.keep, held.messages.end()},
        m.messages, m.conversation_set, m.conversation);
      held.messages.resize(m.keep);
      for (auto& text : m.messages)
        held.messages.push_back(std::move(text));
      held.metadata_json = std::move(m.metadata_json);
      return caf::ok_atom::value;
    },
    [=](session_list&) { return session_listing{}; },
    [=](session_catalog_request&) { return session_catalog{}; },
    [=](session_patch& m) -> caf::result<caf::ok_atom> {
      auto& all = self->state.sessions;
      auto i = all.find(m.key);
      auto patch = nlohmann::json::parse(m.patch_json, nullptr, false);
      if (i == all.end() || !patch.is_object())
        return caf::make_error(errc::invalid_arguments,
                               "no temporary chat " + m.key);
      auto meta = nlohmann::json::parse(i->second.metadata_json, nullptr,
                                        false);
      if (!meta.is_object())
        meta = nlohmann::json::object();
      meta.merge_patch(patch);
      i->second.metadata_json = meta.dump();
      return caf::ok_atom::value;
    },
    [=](session_remove& m) {
      self->state.sessions.erase(m.key);
      return caf::ok_atom::value;
    },
  };
}

} // namespace nb
