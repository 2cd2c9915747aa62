// Named leases in the session store: one live holder at a time. The gateway
// takes the "schedules" lease before running cron and heartbeat, and renews
// it; a second gateway started by mistake sees it held and stays quiet, so
// nothing fires twice. Files: a JSON file per lease next to the sessions,
// changed under flock. PostgreSQL: a row in nb_leases.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <caf/expected.hpp>
#include <caf/fwd.hpp>
#include <caf/meta/type_name.hpp>

#include "messages/lease.hpp"

namespace nb {

class pg_connection;

/// The outcome of one acquire-or-renew attempt.
struct lease_state {
  bool held = false;     ///< true: `owner` (the caller) holds it now
  std::string holder;    ///< who holds it ("" = nobody)
  int64_t expires_in_ms = 0;
};

/// Sent from the thread that did the file work to the keeper.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lease_state& x) {
  return f(caf::meta::type_name("lease_state"), x.held, x.holder,
           x.expires_in_ms);
}

/// Takes or renews lease `name` for `owner` for `ttl_ms` when it is free,
/// expired, or already `owner`'s, at wall-clock time `now_ms` (epoch ms:
/// gateways on one store compare these). Blocking file I/O (run it off the
/// scheduler). `dir` is the sessions directory.
caf::expected<lease_state> file_lease(const std::string& dir,
                                      const std::string& name,
                                      const std::string& owner, int64_t ttl_ms,
                                      int64_t now_ms);

/// The same in PostgreSQL (nb_leases); the database's clock decides.
caf::expected<lease_state> pg_lease(pg_connection& db, const std::string& name,
                                    const std::string& owner, int64_t ttl_ms);

/// Gives lease `name` up if `owner` holds it (an orderly shutdown), so a
/// successor need not wait for it to expire.
caf::error file_lease_release(const std::string& dir, const std::string& name,
                              const std::string& owner);
caf::error pg_lease_release(pg_connection& db, const std::string& name,
                            const std::string& owner);

/// `dsn` empty: leases live in `sessions_dir` (each operation on a thread
/// that exists only while it runs), timed by `wall_ms` (epoch ms; unset:
/// the system clock; tests on simulated time pass theirs); else in
/// PostgreSQL (one connection on a thread of its own; its clock decides).
lease_actor spawn_lease_keeper(caf::actor_system& sys,
                               const std::string& sessions_dir,
                               const std::string& dsn,
                               std::function<int64_t()> wall_ms = {});

} // namespace nb
