// The SQLite functions the memory index calls, from libsqlite3.so.0 opened
// when the first index file is opened (see actors/common/shared_library):
// a gateway maps SQLite only once a turn or a tool reaches the index, not
// at start (its load-time relocations were ~1.8 M instructions of every
// start, measured with callgrind on an empty program).
#pragma once

#include <string>

#include <sqlite3.h>

namespace nb::memory {

struct sqlite_library {
  decltype(&::sqlite3_open_v2) open_v2;
  decltype(&::sqlite3_close) close;
  decltype(&::sqlite3_busy_timeout) busy_timeout;
  decltype(&::sqlite3_errmsg) errmsg;
  decltype(&::sqlite3_errstr) errstr;
  decltype(&::sqlite3_exec) exec;
  decltype(&::sqlite3_free) free;
  decltype(&::sqlite3_last_insert_rowid) last_insert_rowid;
  decltype(&::sqlite3_prepare_v2) prepare_v2;
  decltype(&::sqlite3_finalize) finalize;
  decltype(&::sqlite3_step) step;
  decltype(&::sqlite3_reset) reset;
  decltype(&::sqlite3_clear_bindings) clear_bindings;
  decltype(&::sqlite3_bind_int64) bind_int64;
  decltype(&::sqlite3_bind_double) bind_double;
  decltype(&::sqlite3_bind_text) bind_text;
  decltype(&::sqlite3_bind_blob) bind_blob;
  decltype(&::sqlite3_column_int64) column_int64;
  decltype(&::sqlite3_column_double) column_double;
  decltype(&::sqlite3_column_text) column_text;
  decltype(&::sqlite3_column_blob) column_blob;
  decltype(&::sqlite3_column_bytes) column_bytes;
};

/// libsqlite3, opened once per process on the first call; null with
/// `error` naming the package when it is missing. Opens a file on the
/// first call: only from the index's own thread.
const sqlite_library* load_sqlite(std::string& error);

} // namespace nb::memory
