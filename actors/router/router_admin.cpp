#include "actors/router/router_admin.hpp"

#include <nlohmann/json.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/session/session.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

store_admin_actor admin_store(member_router_pointer self) {
  return caf::actor_cast<store_admin_actor>(self->state.svc.store);
}

caf::error no_store() {
  return caf::make_error(errc::store_failed,
                         "the session store is restarting; try again");
}

} // namespace

caf::result<session_catalog> catalog_for_webui(member_router_pointer self,
                                               session_catalog_request& m) {
  auto store = admin_store(self);
  if (!store)
    return no_store();
  std::vector<std::string> ids;
  for (const auto& [id, slot] : self->state.plan.agents)
    ids.push_back(id);
  auto rp = self->make_response_promise<session_catalog>();
  timed_request(self, store, self->state.cfg.store_timeout, m)
    .then(
      [rp, ids](session_catalog& cat) mutable {
        for (auto& card : cat.sessions)
          card.agent = agent_of_key(card.key, ids);
        rp.deliver(std::move(cat));
      },
      [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

caf::result<session_snapshot> transcript_for_webui(member_router_pointer self,
                                                   session_load& m) {
  auto store = admin_store(self);
  if (!store)
    return no_store();
  return self->delegate(store, std::move(m));
}

caf::result<caf::ok_atom> change_session(member_router_pointer self,
                                         session_admin& a) {
  auto& st = self->state;
  if (a.op != "delete" && admin_meta_patch(a).is_null())
    return caf::make_error(errc::invalid_arguments,
                           "unknown session change '" + a.op + "'");
  if (auto i = st.sessions.find(a.key); i != st.sessions.end())
    return self->delegate(
      caf::actor_cast<session_admin_view>(i->second.session), std::move(a));
  // No live session: the store alone has the file. A message arriving next
  // spawns a session whose first read reaches the store after this change
  // (the store keeps one key's requests in order).
  auto store = admin_store(self);
  if (!store)
    return no_store();
  if (a.op == "delete") {
    log::get("router")->info("[{}] deleted from the WebUI", a.key);
    return self->delegate(store, session_remove{a.key});
  }
  return self->delegate(store, session_patch{a.key, admin_meta_patch(a).dump()});
}

} // namespace nb
