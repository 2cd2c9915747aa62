#include "actors/store/memory_store.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <nlohmann/json.hpp>

#include "messages/errc.hpp"

namespace nb {

store_admin_actor::behavior_type memory_store_impl(
  store_admin_actor::stateful_pointer<memory_store_state> self) {
  return {
    [=](session_load& m) {
      session_snapshot out;
      out.key = m.key;
      auto& all = self->state.sessions;
      if (auto i = all.find(m.key); i != all.end()) {
        out.existed = true;
        out.metadata_json = i->second.metadata_json;
        out.messages = i->second.messages;
      }
      return out;
    },
    [=](session_append& m) {
      auto& held = self->state.sessions[m.key];
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
