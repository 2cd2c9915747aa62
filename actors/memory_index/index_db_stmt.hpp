// Private to nb_memory_index: the prepared-statement wrapper index_db's
// files share (index_db.cpp: schema, sources and chunks; index_db_vectors.cpp:
// embeddings and the embedding cache).
#pragma once

#include <string>

#include "actors/memory_index/index_db.hpp"
#include "actors/memory_index/sqlite_library.hpp"

namespace nb::memory {

/// A prepared statement, finalised on scope exit.
class index_db::stmt {
public:
  stmt(index_db& db, const char* sql) : db_(db), sql_(*db.sql_) {
    auto rc = sql_.prepare_v2(db.db_, sql, -1, &s_, nullptr);
    if (rc != SQLITE_OK)
      db.fail(rc, std::string{"prepare: "} + sql_.errmsg(db.db_));
  }
  ~stmt() { sql_.finalize(s_); }
  stmt(const stmt&) = delete;
  stmt& operator=(const stmt&) = delete;

  stmt& bind(int i, int64_t v) {
    check(sql_.bind_int64(s_, i, v));
    return *this;
  }
  stmt& bind(int i, double v) {
    check(sql_.bind_double(s_, i, v));
    return *this;
  }
  stmt& bind(int i, const std::string& v) {
    check(sql_.bind_text(s_, i, v.data(), static_cast<int>(v.size()),
                            SQLITE_TRANSIENT));
    return *this;
  }
  stmt& bind_blob(int i, const std::string& v) {
    check(sql_.bind_blob(s_, i, v.data(), static_cast<int>(v.size()),
                            SQLITE_TRANSIENT));
    return *this;
  }
  /// Steps once; true while a row is available.
  bool step() {
    auto rc = sql_.step(s_);
    if (rc == SQLITE_ROW)
      return true;
    if (rc == SQLITE_DONE)
      return false;
    db_.fail(rc, std::string{"step: "} + sql_.errmsg(db_.db_));
  }
  void run() {
    while (step()) {
    }
  }
  /// Ready for the next bindings (the statement is reused).
  void reset() {
    sql_.reset(s_);
    sql_.clear_bindings(s_);
  }
  int64_t i64(int col) { return sql_.column_int64(s_, col); }
  double real(int col) { return sql_.column_double(s_, col); }
  std::string text(int col) {
    auto p = sql_.column_text(s_, col);
    return p ? std::string{reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sql_.column_bytes(s_, col))}
             : std::string{};
  }
  const float* floats(int col, int32_t dims) {
    auto p = sql_.column_blob(s_, col);
    auto n = sql_.column_bytes(s_, col);
    if (p == nullptr || n != dims * static_cast<int>(sizeof(float)))
      return nullptr;
    return static_cast<const float*>(p);
  }

private:
  void check(int rc) {
    if (rc != SQLITE_OK)
      db_.fail(rc, std::string{"bind: "} + sql_.errmsg(db_.db_));
  }
  index_db& db_;
  const sqlite_library& sql_;
  sqlite3_stmt* s_ = nullptr;
};

} // namespace nb::memory
