#include "actors/store/pg_conn.hpp"

#include <libpq-fe.h>

#include "messages/errc.hpp"

namespace nb {

namespace {

caf::error pg_error(const std::string& what, const char* detail) {
  std::string text = "PostgreSQL: " + what;
  if (detail != nullptr && *detail != '\0') {
    std::string d{detail};
    while (!d.empty() && (d.back() == '\n' || d.back() == ' '))
      d.pop_back();
    text += ": " + d;
  }
  return caf::make_error(errc::store_failed, std::move(text));
}

} // namespace

pg_connection::pg_connection(std::string dsn) : dsn_(std::move(dsn)) {}

pg_connection::~pg_connection() {
  if (conn_ != nullptr)
    PQfinish(conn_);
}

caf::error pg_connection::ensure_connected() {
  if (conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK)
    return {};
  if (conn_ != nullptr) {
    PQreset(conn_);
    if (PQstatus(conn_) == CONNECTION_OK)
      return {};
    auto err = pg_error("reconnecting failed", PQerrorMessage(conn_));
    PQfinish(conn_);
    conn_ = nullptr;
    return err;
  }
  conn_ = PQconnectdb(dsn_.c_str());
  if (conn_ == nullptr)
    return pg_error("out of memory connecting", nullptr);
  if (PQstatus(conn_) != CONNECTION_OK) {
    auto err = pg_error("cannot connect (sessionStoreDsn)", PQerrorMessage(conn_));
    PQfinish(conn_);
    conn_ = nullptr;
    return err;
  }
  // Quiet the NOTICEs of CREATE TABLE IF NOT EXISTS on stderr.
  PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
  return {};
}

caf::error pg_connection::exec(const std::string& sql,
                               const std::vector<std::string>& params,
                               pg_rows* rows) {
  if (auto err = ensure_connected())
    return err;
  std::vector<const char*> values;
  values.reserve(params.size());
  for (auto& p : params)
    values.push_back(p.c_str());
  PGresult* res = PQexecParams(conn_, sql.c_str(),
                               static_cast<int>(values.size()), nullptr,
                               values.data(), nullptr, nullptr, 0);
  std::unique_ptr<PGresult, void (*)(PGresult*)> guard{res, PQclear};
  auto status = res != nullptr ? PQresultStatus(res) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    auto first_word = sql.substr(0, sql.find(' '));
    return pg_error(first_word + " failed", res != nullptr
                                              ? PQresultErrorMessage(res)
                                              : PQerrorMessage(conn_));
  }
  if (rows != nullptr) {
    rows->clear();
    int n = PQntuples(res), cols = PQnfields(res);
    for (int r = 0; r < n; ++r) {
      std::vector<std::optional<std::string>> row;
      for (int c = 0; c < cols; ++c)
        if (PQgetisnull(res, r, c))
          row.emplace_back(std::nullopt);
        else
          row.emplace_back(std::string{PQgetvalue(res, r, c),
                                       static_cast<size_t>(PQgetlength(res, r, c))});
      rows->push_back(std::move(row));
    }
  }
  return {};
}

} // namespace nb
