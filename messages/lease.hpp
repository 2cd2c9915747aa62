// The lease keeper's interface: named leases with one live holder at a
// time (the schedules lease keeps cron and the heartbeat on one gateway).
// The keeper itself lives in actors/store/lease.hpp.
#pragma once

#include <cstdint>
#include <string>

#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace nb {

using lease_atom = caf::atom_constant<caf::atom("nblease")>;
using unlease_atom = caf::atom_constant<caf::atom("nbunlease")>;

/// The lease keeper (a detached actor: its calls block):
///   (lease_atom, name, owner, ttl_ms)   -> (held, holder, expires_in_ms)
///   (unlease_atom, name, owner)         -> ok
/// Call lease_atom again before ttl_ms runs out to keep the lease.
using lease_actor = caf::typed_actor<
  caf::replies_to<lease_atom, std::string, std::string,
                  int64_t>::with<bool, std::string, int64_t>,
  caf::replies_to<unlease_atom, std::string, std::string>::with<caf::ok_atom>>;

} // namespace nb
