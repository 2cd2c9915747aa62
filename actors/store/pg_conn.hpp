// A PostgreSQL connection (libpq) for the session store's workers: blocking
// calls, one connection per detached worker, errors as values. Nothing here
// throws, and no message ever contains the connection string (it may hold a
// password).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/error.hpp>

struct pg_conn;

namespace nb {

struct pq_library;

/// Rows of a query: text values, NULL as nullopt.
using pg_rows = std::vector<std::vector<std::optional<std::string>>>;

class pg_connection {
public:
  explicit pg_connection(std::string dsn);
  ~pg_connection();
  pg_connection(const pg_connection&) = delete;
  pg_connection& operator=(const pg_connection&) = delete;

  /// Runs `sql` with text parameters $1..$n; fills `rows` when given.
  /// Connects (or reconnects after a broken connection) first.
  caf::error exec(const std::string& sql,
                  const std::vector<std::string>& params = {},
                  pg_rows* rows = nullptr);

  /// Runs `body` inside BEGIN ... COMMIT; ROLLBACK when it fails.
  template <class F>
  caf::error transaction(F body) {
    if (auto err = exec("BEGIN"))
      return err;
    if (auto err = body()) {
      exec("ROLLBACK");
      return err;
    }
    return exec("COMMIT");
  }

private:
  caf::error ensure_connected();
  std::string dsn_;
  /// libpq, loaded by the first ensure_connected().
  const pq_library* pq_ = nullptr;
  ::pg_conn* conn_ = nullptr;
};

} // namespace nb
