#include "actors/memory_index/index_db.hpp"
#include "actors/memory_index/index_db_stmt.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>

#include "actors/memory_index/sqlite_library.hpp"

namespace nb::memory {

namespace {

constexpr const char* schema = R"sql(
CREATE TABLE IF NOT EXISTS sources(
  path TEXT PRIMARY KEY, stamp TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  source TEXT NOT NULL, chunk_key TEXT NOT NULL,
  line_start INTEGER NOT NULL, line_end INTEGER NOT NULL,
  text TEXT NOT NULL, norm TEXT NOT NULL,
  category TEXT NOT NULL, permanent INTEGER NOT NULL DEFAULT 0,
  importance REAL NOT NULL DEFAULT 0.5,
  created INTEGER NOT NULL, last_recalled INTEGER NOT NULL DEFAULT 0,
  recall_count INTEGER NOT NULL DEFAULT 0,
  embedding BLOB, embed_model TEXT, embed_dims INTEGER);
CREATE INDEX IF NOT EXISTS chunks_by_source ON chunks(source);
CREATE INDEX IF NOT EXISTS chunks_by_line ON chunks(source, line_start);
CREATE INDEX IF NOT EXISTS chunks_by_norm ON chunks(norm);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_words USING fts5(
  text, content='chunks', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_trigrams USING fts5(
  text, content='chunks', content_rowid='id', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS chunks_added AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_words(rowid, text) VALUES (new.id, new.text);
  INSERT INTO chunks_trigrams(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_removed AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_words(chunks_words, rowid, text)
    VALUES ('delete', old.id, old.text);
  INSERT INTO chunks_trigrams(chunks_trigrams, rowid, text)
    VALUES ('delete', old.id, old.text);
END;
CREATE TABLE IF NOT EXISTS embed_cache(
  model TEXT NOT NULL, dims INTEGER NOT NULL, hash TEXT NOT NULL,
  vector BLOB NOT NULL, PRIMARY KEY (model, dims, hash));
)sql";

} // namespace

bool db_error::corrupt() const {
  auto primary = code_ & 0xff;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
         || primary == SQLITE_BUSY || primary == SQLITE_LOCKED
         || primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR;
}

index_db::index_db(const std::string& path) : path_(path) {
  std::string missing;
  sql_ = load_sqlite(missing);
  if (sql_ == nullptr) // not the file's fault: nothing is moved aside
    throw db_error(SQLITE_ERROR, "open " + path + ": " + missing);
  auto rc = sql_->open_v2(path.c_str(), &db_,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                              | SQLITE_OPEN_NOMUTEX,
                            nullptr);
  if (rc != SQLITE_OK) {
    std::string what = db_ ? sql_->errmsg(db_) : "out of memory";
    sql_->close(db_);
    db_ = nullptr;
    throw db_error(rc, "open " + path + ": " + what);
  }
  try {
    sql_->busy_timeout(db_, 5000);
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    // 512 KiB of page cache, not SQLite's 2 MB: the file's pages are in the
    // OS's cache anyway, and the soak's heap profile showed the default
    // filling up as history grew (2.6 MB of 7.6 MB in use at minute 31).
    exec("PRAGMA cache_size=-512");
    exec(schema);
    // A damaged file shows here rather than in the middle of a search.
    stmt check{*this, "PRAGMA quick_check"};
    if (check.step() && check.text(0) != "ok")
      fail(SQLITE_CORRUPT, "quick_check: " + check.text(0));
  } catch (...) {
    sql_->close(db_);
    db_ = nullptr;
    throw;
  }
}

index_db::~index_db() {
  if (db_)
    sql_->close(db_);
}

void index_db::fail(int code, const std::string& what) {
  throw db_error(code, path_ + ": " + what);
}

void index_db::exec(const char* sql) {
  char* msg = nullptr;
  auto rc = sql_->exec(db_, sql, nullptr, nullptr, &msg);
  if (rc != SQLITE_OK) {
    std::string what = msg ? msg : sql_->errstr(rc);
    sql_->free(msg);
    fail(rc, what);
  }
}

void index_db::begin() { exec("BEGIN IMMEDIATE"); }
void index_db::commit() { exec("COMMIT"); }
void index_db::rollback() noexcept {
  sql_->exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

std::string index_db::source_stamp(const std::string& source) {
  stmt s{*this, "SELECT stamp FROM sources WHERE path = ?"};
  s.bind(1, source);
  return s.step() ? s.text(0) : std::string{};
}

void index_db::set_source_stamp(const std::string& source,
                                const std::string& stamp) {
  stmt s{*this, "INSERT INTO sources(path, stamp) VALUES (?, ?) "
                "ON CONFLICT(path) DO UPDATE SET stamp = excluded.stamp"};
  s.bind(1, source).bind(2, stamp).run();
}

std::vector<std::string> index_db::sources() {
  std::vector<std::string> out;
  stmt s{*this, "SELECT path FROM sources"};
  while (s.step())
    out.push_back(s.text(0));
  return out;
}

void index_db::forget_source(const std::string& source) {
  stmt a{*this, "DELETE FROM chunks WHERE source = ?"};
  a.bind(1, source).run();
  stmt b{*this, "DELETE FROM sources WHERE path = ?"};
  b.bind(1, source).run();
}

std::vector<stored_chunk> index_db::chunks_of(const std::string& source) {
  std::vector<stored_chunk> out;
  stmt s{*this, "SELECT id, chunk_key, line_start, line_end FROM chunks "
                "WHERE source = ?"};
  s.bind(1, source);
  while (s.step())
    out.push_back({s.i64(0), s.text(1), static_cast<int32_t>(s.i64(2)),
                   static_cast<int32_t>(s.i64(3))});
  return out;
}

std::vector<stored_chunk> index_db::chunks_in_lines(const std::string& source,
                                                    int32_t first,
                                                    int32_t last) {
  std::vector<stored_chunk> out;
  stmt s{*this, "SELECT id, chunk_key, line_start, line_end FROM chunks "
                "WHERE source = ? AND line_start BETWEEN ? AND ?"};
  s.bind(1, source).bind(2, int64_t{first}).bind(3, int64_t{last});
  while (s.step())
    out.push_back({s.i64(0), s.text(1), static_cast<int32_t>(s.i64(2)),
                   static_cast<int32_t>(s.i64(3))});
  return out;
}

std::vector<int64_t> index_db::ids_after_line(const std::string& source,
                                              int32_t line, int limit) {
  std::vector<int64_t> out;
  stmt s{*this, "SELECT id FROM chunks WHERE source = ? AND line_start > ? "
                "LIMIT ?"};
  s.bind(1, source).bind(2, int64_t{line}).bind(3, int64_t{limit});
  while (s.step())
    out.push_back(s.i64(0));
  return out;
}

int64_t index_db::insert(const chunk& c, int64_t now) {
  stmt s{*this,
         "INSERT INTO chunks(source, chunk_key, line_start, line_end, text, "
         "norm, category, permanent, importance, created) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"};
  s.bind(1, c.source).bind(2, c.key).bind(3, int64_t{c.line_start});
  s.bind(4, int64_t{c.line_end}).bind(5, c.text).bind(6, normalize_text(c.text));
  s.bind(7, c.category).bind(8, int64_t{c.permanent ? 1 : 0});
  s.bind(9, c.importance).bind(10, c.created > 0 ? c.created : now);
  s.run();
  return sql_->last_insert_rowid(db_);
}

void index_db::set_lines(int64_t id, int32_t first, int32_t last) {
  stmt s{*this, "UPDATE chunks SET line_start = ?, line_end = ? WHERE id = ?"};
  s.bind(1, int64_t{first}).bind(2, int64_t{last}).bind(3, id).run();
}

void index_db::remove(int64_t id) {
  stmt s{*this, "DELETE FROM chunks WHERE id = ?"};
  s.bind(1, id).run();
}

int64_t index_db::count() {
  stmt s{*this, "SELECT count(*) FROM chunks"};
  return s.step() ? s.i64(0) : 0;
}

std::vector<text_hit> index_db::match(bool trigrams,
                                      const std::string& fts_query,
                                      const std::string& category,
                                      int limit, int newest) {
  std::vector<text_hit> out;
  std::string table = trigrams ? "chunks_trigrams" : "chunks_words";
  // FTS5 ranks every match (bm25 reads each one's sizes): the cost grows
  // with the matches. Walking the matches newest first and stopping at the
  // `newest`-th (rowids ascend with time) bounds it.
  std::optional<int64_t> oldest;
  if (newest > 0) {
    stmt b{*this, ("SELECT rowid FROM " + table + " WHERE " + table
                   + " MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?")
                    .c_str()};
    b.bind(1, fts_query).bind(2, int64_t{newest - 1});
    if (b.step())
      oldest = b.i64(0);
  }
  std::string sql = "SELECT f.rowid, bm25(" + table + ") AS r FROM " + table
                    + " f";
  if (!category.empty())
    sql += " JOIN chunks c ON c.id = f.rowid";
  sql += " WHERE " + table + " MATCH ?";
  if (!category.empty())
    sql += " AND c.category = ?";
  if (oldest)
    sql += " AND f.rowid >= ?";
  sql += " ORDER BY r LIMIT ?";
  stmt s{*this, sql.c_str()};
  int i = 1;
  s.bind(i++, fts_query);
  if (!category.empty())
    s.bind(i++, category);
  if (oldest)
    s.bind(i++, *oldest);
  s.bind(i, int64_t{limit});
  while (s.step())
    out.push_back({s.i64(0), s.real(1)});
  return out;
}

std::vector<text_hit> index_db::contains(const std::string& needle,
                                         const std::string& category,
                                         int limit, int newest) {
  std::vector<text_hit> out;
  std::string sql = "SELECT id FROM chunks WHERE instr(text, ?) > 0";
  if (!category.empty())
    sql += " AND category = ?";
  if (newest > 0)
    sql += " AND id >= coalesce((SELECT id FROM chunks ORDER BY id DESC "
           "LIMIT 1 OFFSET ?), 0)";
  sql += " ORDER BY id DESC LIMIT ?";
  stmt s{*this, sql.c_str()};
  int i = 1;
  s.bind(i++, needle);
  if (!category.empty())
    s.bind(i++, category);
  if (newest > 0)
    s.bind(i++, int64_t{newest - 1});
  s.bind(i, int64_t{limit});
  while (s.step())
    out.push_back({s.i64(0), 0});
  return out;
}

namespace {
constexpr const char* row_columns
  = "SELECT id, text, source, line_start, line_end, category, permanent, "
    "importance, created, last_recalled, recall_count FROM chunks";
} // namespace

std::optional<chunk_row> index_db::row(int64_t id) {
  auto r = rows({id});
  if (r.empty())
    return std::nullopt;
  return r.front();
}

std::vector<chunk_row> index_db::rows(const std::vector<int64_t>& ids) {
  std::vector<chunk_row> out;
  std::string sql = std::string{row_columns} + " WHERE id = ?";
  stmt s{*this, sql.c_str()};
  for (auto id : ids) {
    s.reset();
    s.bind(1, id);
    if (!s.step())
      continue;
    chunk_row r;
    r.id = s.i64(0);
    r.text = s.text(1);
    r.source = s.text(2);
    r.line_start = static_cast<int32_t>(s.i64(3));
    r.line_end = static_cast<int32_t>(s.i64(4));
    r.category = s.text(5);
    r.permanent = s.i64(6) != 0;
    r.importance = s.real(7);
    r.created = s.i64(8);
    r.last_recalled = s.i64(9);
    r.recall_count = s.i64(10);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<int64_t> index_db::same_text(const std::string& text) {
  std::vector<int64_t> out;
  stmt s{*this, "SELECT id FROM chunks WHERE norm = ?"};
  s.bind(1, normalize_text(text));
  while (s.step())
    out.push_back(s.i64(0));
  return out;
}

void index_db::mark_recalled(const std::vector<int64_t>& ids, int64_t now) {
  if (ids.empty())
    return;
  begin();
  try {
    stmt s{*this, "UPDATE chunks SET recall_count = recall_count + 1, "
                  "last_recalled = ? WHERE id = ?"};
    for (auto id : ids) {
      s.reset();
      s.bind(1, now).bind(2, id).run();
    }
  } catch (...) {
    rollback();
    throw;
  }
  commit();
}

int64_t index_db::file_bytes() const {
  int64_t total = 0;
  for (auto* suffix : {"", "-wal"}) {
    struct stat st {};
    if (::stat((path_ + suffix).c_str(), &st) == 0)
      total += st.st_size;
  }
  return total;
}

std::string move_aside(const std::string& path) {
  using namespace std::chrono;
  auto ms = duration_cast<milliseconds>(system_clock::now().time_since_epoch())
              .count();
  auto target = path + ".corrupt-" + std::to_string(ms);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return {};
  if (std::rename(path.c_str(), target.c_str()) != 0)
    return {};
  for (auto* suffix : {"-wal", "-shm"})
    std::rename((path + suffix).c_str(), (target + suffix).c_str());
  return target;
}

} // namespace nb::memory
