// A real PostgreSQL server for tests: initdb into a temp dir, listening on a
// free loopback port, stopped and removed at the end. Runs as the `postgres`
// user when the tests run as root (initdb refuses root).
#pragma once

#include <string>

namespace nb::test {

class pg_server {
public:
  pg_server();
  ~pg_server();
  pg_server(const pg_server&) = delete;
  pg_server& operator=(const pg_server&) = delete;

  /// A libpq connection string for the server's `postgres` database.
  std::string dsn() const;
  /// Kills the server without a clean shutdown (immediate mode: no
  /// checkpoint), then starts it again: what survives was committed.
  void crash_and_restart();

private:
  void start();
  std::string dir_;
  std::string bin_ = "/usr/lib/postgresql/15/bin";
  int port_ = 0;
};

/// One server for the whole test binary (initdb takes seconds).
pg_server& shared_pg_server();

} // namespace nb::test
