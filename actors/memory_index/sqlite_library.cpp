#include "actors/memory_index/sqlite_library.hpp"

#include "actors/common/shared_library.hpp"

namespace nb::memory {

namespace {

constexpr library_spec libsqlite_spec{"libsqlite3.so.0", "libsqlite3-0",
                                      "the memory index (recall)"};

} // namespace

const sqlite_library* load_sqlite(std::string& error) {
  static const auto sqlite = open_functions<sqlite_library>(
    libsqlite_spec, [](sqlite_library& f, auto bind) -> std::string {
      bind("sqlite3_open_v2", f.open_v2) && bind("sqlite3_close", f.close)
        && bind("sqlite3_busy_timeout", f.busy_timeout)
        && bind("sqlite3_errmsg", f.errmsg) && bind("sqlite3_errstr", f.errstr)
        && bind("sqlite3_exec", f.exec) && bind("sqlite3_free", f.free)
        && bind("sqlite3_last_insert_rowid", f.last_insert_rowid)
        && bind("sqlite3_prepare_v2", f.prepare_v2)
        && bind("sqlite3_finalize", f.finalize) && bind("sqlite3_step", f.step)
        && bind("sqlite3_reset", f.reset)
        && bind("sqlite3_clear_bindings", f.clear_bindings)
        && bind("sqlite3_bind_int64", f.bind_int64)
        && bind("sqlite3_bind_double", f.bind_double)
        && bind("sqlite3_bind_text", f.bind_text)
        && bind("sqlite3_bind_blob", f.bind_blob)
        && bind("sqlite3_column_int64", f.column_int64)
        && bind("sqlite3_column_double", f.column_double)
        && bind("sqlite3_column_text", f.column_text)
        && bind("sqlite3_column_blob", f.column_blob)
        && bind("sqlite3_column_bytes", f.column_bytes);
      return {};
    });
  return sqlite.get(error);
}

} // namespace nb::memory
