// The WebUI's JSON API (/api/*): a call as the WebSocket server's io thread
// read it, and the answer. The server hands each call to its channel actor,
// which runs the blocking work off the scheduler and hands the answer back.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <caf/meta/type_name.hpp>
#include <caf/type_id.hpp>

#include "messages/session_admin.hpp"

namespace nb {

/// One /api/* call that passed the token and Origin checks.
struct api_call {
  uint64_t id = 0;    ///< the server's, to find the waiting request again
  std::string method; ///< GET, POST, PUT or DELETE
  std::string name;   ///< the path after "/api/": "stats", "setup/test"
  std::string body;   ///< the request body (JSON for the setup calls)
  /// The URL's decoded query ("?agent=research" -> {agent: research}).
  std::map<std::string, std::string> query;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, api_call& x) {
  return f(caf::meta::type_name("api_call"), x.id, x.method, x.name, x.body,
           x.query);
}

/// The answer: an HTTP status and a JSON body.
struct api_reply {
  int32_t status = 200;
  std::string body;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, api_reply& x) {
  return f(caf::meta::type_name("api_reply"), x.status, x.body);
}

} // namespace nb

CAF_BEGIN_TYPE_ID_BLOCK(nb_webui, caf::id_block::nb_sessions::end)

CAF_ADD_TYPE_ID(nb_webui, (nb::api_call))
CAF_ADD_TYPE_ID(nb_webui, (nb::api_reply))

CAF_END_TYPE_ID_BLOCK(nb_webui)
