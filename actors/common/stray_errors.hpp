// An error that arrives as a message of its own, with no request waiting
// for it: a timeout armed under the wrong id, a late answer's error, a
// peer's `send` of an error. CAF 0.17's default error handler ends the
// actor with it, and a router, a session or the inbox takes every chat it
// serves along (the gateway once stopped so: "the router died
// (request_timeout)"). The long-lived actors of the turn path log it and go
// on instead; a request's own error still reaches that request's handler.
#pragma once

#include <string>

#include <caf/error.hpp>

#include "actors/common/log.hpp"

namespace nb {

/// Makes `self` log and drop errors no request waits for, on `concern`'s
/// logger; `who` names the actor there (a session's key).
template <class Self>
void drop_stray_errors(Self* self, const char* concern, std::string who) {
  self->set_error_handler([self, concern, who](caf::error& err) {
    log::get(concern)->error("[{}] an error no request waited for ({}); "
                             "dropped", who, self->system().render(err));
  });
}

} // namespace nb
