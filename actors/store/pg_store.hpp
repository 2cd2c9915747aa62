// The session store on PostgreSQL (sessionStore "postgres"): the shared
// front (sharded_front.hpp) over detached workers with a connection each;
// the same interface and ordering as the file store.
#pragma once

#include <memory>
#include <string>

#include "actors/common/meter.hpp"
#include "actors/store/pg_conn.hpp"
#include "messages/interfaces.hpp"

namespace spdlog {
class logger;
} // namespace spdlog

namespace nb {

struct pg_worker_state {
  pg_worker_state() = default;
  std::unique_ptr<pg_connection> db;
  bool schema_ready = false;
  std::shared_ptr<spdlog::logger> log;
  actor_meter meter;
  static inline const char* name = "store_worker";
};

/// Spawns the store for `dsn` (a libpq connection string) with `workers`
/// detached workers (at least 1). Requests for one key run in order on one
/// worker. Failures answer nb::errc::store_failed naming the operation.
store_actor spawn_pg_store(caf::actor_system& sys, const std::string& dsn,
                           int workers, stats_actor stats);

} // namespace nb
