// The WebUI's sessions page (issue 20, part 3): listing every stored
// session with its title, renaming, archiving and deleting one, and reading
// a transcript. The store answers for the files, the router for the live
// session that owns a key (a live session caches its metadata, so a change
// made behind its back would be overwritten by its next write). Kept out of
// session.hpp and interfaces.hpp, which nearly every file includes; with its
// own type-ID block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>

#include "messages/interfaces.hpp"
#include "messages/control.hpp"

namespace nb {

/// Asks for every stored session with what a list shows of it.
struct session_catalog_request {
  int32_t limit = 0; ///< 0 = all
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, session_catalog_request& x) {
  return f(caf::meta::type_name("session_catalog_request"), x.limit);
}

/// One stored session as a list shows it.
struct session_card {
  std::string key;
  std::string agent;      ///< filled in by the router ("main" for unprefixed)
  int64_t updated_ms = 0; ///< the file's modification time, epoch ms
  std::string title;      ///< metadata "title" ("" = none given)
  bool archived = false;  ///< metadata "archived"
  std::string preview;    ///< the first user message, cut short
  int32_t messages = 0;   ///< message lines in the file
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_card& x) {
  return f(caf::meta::type_name("session_card"), x.key, x.agent,
           x.updated_ms, x.title, x.archived, x.preview, x.messages);
}

/// Most recently written first.
struct session_catalog {
  std::vector<session_card> sessions;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_catalog& x) {
  return f(caf::meta::type_name("session_catalog"), x.sessions);
}

/// Merges `patch_json` (a JSON object; a null value removes that key) into
/// the metadata line of a session file, keeping every message as written.
/// A missing file is an error (errc::not_found).
struct session_patch {
  std::string key;
  std::string patch_json = "{}";
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_patch& x) {
  return f(caf::meta::type_name("session_patch"), x.key, x.patch_json);
}

/// Deletes a session file (a missing one is no error).
struct session_remove {
  std::string key;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_remove& x) {
  return f(caf::meta::type_name("session_remove"), x.key);
}

/// What the page asks of one session: "rename" (to `title`; "" clears it),
/// "archive", "unarchive" or "delete". The router hands it to the live
/// session of that key, which applies it between turns, or to the store.
struct session_admin {
  std::string key;
  std::string op;
  std::string title;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_admin& x) {
  return f(caf::meta::type_name("session_admin"), x.key, x.op, x.title);
}

/// The stores' wider view (the file store, PostgreSQL and a temporary
/// chat's memory store): sessions hold the narrower store_actor and
/// actor_cast gives this view of the same actor.
using store_admin_actor = store_actor::extend<
  caf::replies_to<session_catalog_request>::with<session_catalog>,
  caf::replies_to<session_patch>::with<caf::ok_atom>,
  caf::replies_to<session_remove>::with<caf::ok_atom>>;

/// A session's wider view: an admin change, answered once it is on disk.
using session_admin_view
  = session_actor::extend<caf::replies_to<session_admin>::with<caf::ok_atom>>;

/// The gateway router's wider view, found in the registry under
/// sessions_atom: lists (with agents), reads and changes sessions.
using sessions_actor = caf::typed_actor<
  caf::replies_to<session_catalog_request>::with<session_catalog>,
  caf::replies_to<session_load>::with<session_snapshot>,
  caf::replies_to<session_admin>::with<caf::ok_atom>>;

/// The gateway router's name in CAF's actor registry (the WebUI's sessions
/// API reaches it there).
using sessions_atom = caf::atom_constant<caf::atom("sessions")>;

} // namespace nb

CAF_BEGIN_TYPE_ID_BLOCK(nb_sessions, caf::id_block::nb_control::end)

  CAF_ADD_TYPE_ID(nb_sessions, (nb::session_catalog_request))
  CAF_ADD_TYPE_ID(nb_sessions, (nb::session_card))
  CAF_ADD_TYPE_ID(nb_sessions, (std::vector<nb::session_card>))
  CAF_ADD_TYPE_ID(nb_sessions, (nb::session_catalog))
  CAF_ADD_TYPE_ID(nb_sessions, (nb::session_patch))
  CAF_ADD_TYPE_ID(nb_sessions, (nb::session_remove))
  CAF_ADD_TYPE_ID(nb_sessions, (nb::session_admin))

CAF_END_TYPE_ID_BLOCK(nb_sessions)
