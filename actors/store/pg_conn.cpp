#include "actors/store/pg_conn.hpp"

#include "actors/store/pq_library.hpp"

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
    pq_->finish(conn_);
}

caf::error pg_connection::ensure_connected() {
  if (pq_ == nullptr) {
    std::string missing;
    pq_ = load_pq(missing);
    if (pq_ == nullptr)
      return caf::make_error(errc::store_failed, std::move(missing));
  }
  const pq_library& pq = *pq_;
  if (conn_ != nullptr && pq.status(conn_) == CONNECTION_OK)
    return {};
  if (conn_ != nullptr) {
    pq.reset(conn_);
    if (pq.status(conn_) == CONNECTION_OK)
      return {};
    auto err = pg_error("reconnecting failed", pq.error_message(conn_));
    pq.finish(conn_);
    conn_ = nullptr;
    return err;
  }
  conn_ = pq.connectdb(dsn_.c_str());
  if (conn_ == nullptr)
    return pg_error("out of memory connecting", nullptr);
  if (pq.status(conn_) != CONNECTION_OK) {
    auto err =
      pg_error("cannot connect (sessionStoreDsn)", pq.error_message(conn_));
    pq.finish(conn_);
    conn_ = nullptr;
    return err;
  }
  // Quiet the NOTICEs of CREATE TABLE IF NOT EXISTS on stderr.
  pq.set_notice_processor(
    conn_, [](void*, const char*) {}, nullptr);
  return {};
}

caf::error pg_connection::exec(const std::string& sql,
                               const std::vector<std::string>& params,
                               pg_rows* rows) {
  if (auto err = ensure_connected())
    return err;
  const pq_library& pq = *pq_;
  std::vector<const char*> values;
  values.reserve(params.size());
  for (auto& p : params)
    values.push_back(p.c_str());
  PGresult* res =
    pq.exec_params(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                   values.data(), nullptr, nullptr, 0);
  std::unique_ptr<PGresult, void (*)(PGresult*)> guard{res, pq.clear};
  auto status = res != nullptr ? pq.result_status(res) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    auto first_word = sql.substr(0, sql.find(' '));
    return pg_error(first_word + " failed", res != nullptr
                                              ? pq.result_error_message(res)
                                              : pq.error_message(conn_));
  }
  if (rows != nullptr) {
    rows->clear();
    int n = pq.ntuples(res), cols = pq.nfields(res);
    for (int r = 0; r < n; ++r) {
      std::vector<std::optional<std::string>> row;
      for (int c = 0; c < cols; ++c)
        if (pq.getisnull(res, r, c))
          row.emplace_back(std::nullopt);
        else
          row.emplace_back(
            std::string{pq.getvalue(res, r, c),
                        static_cast<size_t>(pq.getlength(res, r, c))});
      rows->push_back(std::move(row));
    }
  }
  return {};
}

} // namespace nb
