// The gateway router's side of the WebUI's sessions page (issue 20, part
// 3): the list and transcripts come from the store, a change goes to the
// live session that owns the key (it caches the file's metadata and would
// overwrite a change made behind its back), or to the store when none is.
#pragma once

#include <caf/result.hpp>

#include "actors/router/router.hpp"

namespace nb {

/// Every stored session, newest first, each with its agent.
caf::result<session_catalog> catalog_for_webui(member_router_pointer self,
                                               session_catalog_request& m);

/// A session's file as it is on disk.
caf::result<session_snapshot> transcript_for_webui(member_router_pointer self,
                                                   session_load& m);

/// rename, archive, unarchive or delete; answered once it is on disk.
caf::result<caf::ok_atom> change_session(member_router_pointer self,
                                         session_admin& a);

} // namespace nb
