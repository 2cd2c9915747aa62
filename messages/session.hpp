// Session lifecycle between the router and its session actors.
#pragma once

#include <cstdint>
#include <string>

#include <caf/meta/type_name.hpp>

namespace nb {

/// A session saw no message for a while and offers to quit. `received`
/// counts the inbound messages it got; the router lets it go only when that
/// equals what it forwarded, so no message is ever lost to a quitting session.
struct session_idle {
  std::string key;
  int64_t received = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_idle& x) {
  return f(caf::meta::type_name("session_idle"), x.key, x.received);
}

} // namespace nb
