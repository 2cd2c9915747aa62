#include "actors/store/pg_sessions.hpp"

#include <nlohmann/json.hpp>

#include "actors/store/session_files.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

using nlohmann::json;

caf::error bad(std::string text) {
  return caf::make_error(errc::store_failed, std::move(text));
}

/// The texts to store: JSON objects only; a text spanning lines is stored
/// compact, exactly as the file store writes it.
caf::expected<std::vector<std::string>>
normalised(const std::string& key, const std::vector<std::string>& msgs) {
  std::vector<std::string> out;
  for (size_t i = 0; i < msgs.size(); ++i) {
    auto j = json::parse(msgs[i], nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return bad("cannot write session " + key + ": message "
                 + std::to_string(i) + " is not a JSON object");
    out.push_back(msgs[i].find_first_of("\r\n") == std::string::npos
                    ? msgs[i]
                    : j.dump());
  }
  return out;
}

caf::error check_key(const std::string& key) {
  if (key.empty())
    return bad("empty session key (PostgreSQL store)");
  return {};
}

/// Inserts `msgs` after the session's last message; the session row is
/// locked first, so two writers of one key never interleave numbers.
caf::error insert_after_last(pg_connection& db, const std::string& key,
                             const std::vector<std::string>& msgs) {
  pg_rows rows;
  if (auto err = db.exec("SELECT coalesce(max(seq), 0) FROM nb_messages "
                         "WHERE key = $1",
                         {key}, &rows))
    return err;
  auto next = std::stoll(rows.at(0).at(0).value_or("0")) + 1;
  for (auto& m : msgs) {
    if (auto err = db.exec("INSERT INTO nb_messages (key, seq, body) "
                           "VALUES ($1, $2, $3)",
                           {key, std::to_string(next++), m}))
      return err;
  }
  return {};
}

} // namespace

caf::error pg_ensure_schema(pg_connection& db) {
  // One statement per call (the extended protocol takes no batches), in one
  // transaction under an advisory lock: workers starting together would
  // otherwise race on the catalog.
  return db.transaction([&]() -> caf::error {
  if (auto err = db.exec("SELECT pg_advisory_xact_lock(74770001)"))
    return err;
  for (const char* sql : {
         "CREATE TABLE IF NOT EXISTS nb_sessions ("
         " key text PRIMARY KEY,"
         " metadata text NOT NULL DEFAULT '{}',"
         " created_at timestamptz NOT NULL DEFAULT now(),"
         " updated_at timestamptz NOT NULL DEFAULT now())",
         "CREATE TABLE IF NOT EXISTS nb_messages ("
         " key text NOT NULL REFERENCES nb_sessions(key) ON DELETE CASCADE,"
         " seq bigint NOT NULL,"
         " body text NOT NULL,"
         " PRIMARY KEY (key, seq))",
         "CREATE TABLE IF NOT EXISTS nb_leases ("
         " name text PRIMARY KEY,"
         " owner text NOT NULL,"
         " expires_at timestamptz NOT NULL)"})
    if (auto err = db.exec(sql))
      return err;
  return caf::error{};
  });
}

caf::expected<session_snapshot> pg_load_session(pg_connection& db,
                                                const std::string& key) {
  if (auto err = check_key(key))
    return err;
  session_snapshot out;
  out.key = key;
  pg_rows rows;
  if (auto err = db.exec("SELECT metadata FROM nb_sessions WHERE key = $1",
                         {key}, &rows))
    return err;
  if (rows.empty())
    return out;
  out.existed = true;
  auto meta = json::parse(rows[0][0].value_or("{}"), nullptr, false);
  out.metadata_json = meta.is_object() ? meta.dump() : "{}";
  if (auto err = db.exec("SELECT body FROM nb_messages WHERE key = $1 "
                         "ORDER BY seq",
                         {key}, &rows))
    return err;
  for (auto& r : rows)
    out.messages.push_back(r[0].value_or("{}"));
  return out;
}

caf::error pg_append_session(pg_connection& db, const std::string& key,
                             const std::vector<std::string>& messages) {
  if (auto err = check_key(key))
    return err;
  auto msgs = normalised(key, messages);
  if (!msgs)
    return msgs.error();
  return db.transaction([&]() -> caf::error {
    if (auto err = db.exec("INSERT INTO nb_sessions (key) VALUES ($1) "
                           "ON CONFLICT (key) DO UPDATE SET updated_at = now()",
                           {key}))
      return err;
    if (auto err = db.exec("SELECT 1 FROM nb_sessions WHERE key = $1 "
                           "FOR UPDATE",
                           {key}))
      return err;
    return insert_after_last(db, key, *msgs);
  });
}

caf::error pg_replace_session(pg_connection& db, const std::string& key,
                              const std::string& metadata_json,
                              const std::vector<std::string>& messages,
                              uint64_t keep) {
  if (auto err = check_key(key))
    return err;
  auto meta = json::parse(metadata_json, nullptr, false);
  if (meta.is_discarded() || !meta.is_object())
    return bad("cannot write session " + key + ": metadata is not a JSON "
               "object");
  auto msgs = normalised(key, messages);
  if (!msgs)
    return msgs.error();
  return db.transaction([&]() -> caf::error {
    if (auto err = db.exec("INSERT INTO nb_sessions (key, metadata) "
                           "VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET "
                           "metadata = $2, updated_at = now()",
                           {key, meta.dump()}))
      return err;
    if (auto err = db.exec("SELECT 1 FROM nb_sessions WHERE key = $1 "
                           "FOR UPDATE",
                           {key}))
      return err;
    if (keep == 0) {
      if (auto err = db.exec("DELETE FROM nb_messages WHERE key = $1", {key}))
        return err;
      return insert_after_last(db, key, *msgs);
    }
    pg_rows rows;
    if (auto err = db.exec("SELECT count(*) FROM nb_messages WHERE key = $1",
                           {key}, &rows))
      return err;
    auto stored = std::stoull(rows.at(0).at(0).value_or("0"));
    if (stored < keep)
      return bad("cannot rewrite session " + key + ": it holds "
                 + std::to_string(stored) + " messages, fewer than the "
                 + std::to_string(keep) + " to keep");
    if (auto err = db.exec("DELETE FROM nb_messages WHERE key = $1 AND seq > "
                           "(SELECT seq FROM nb_messages WHERE key = $1 "
                           "ORDER BY seq OFFSET $2 LIMIT 1)",
                           {key, std::to_string(keep - 1)}))
      return err;
    return insert_after_last(db, key, *msgs);
  });
}

caf::expected<session_listing> pg_list_sessions(pg_connection& db,
                                                int32_t limit) {
  pg_rows rows;
  std::string sql = "SELECT key, (extract(epoch FROM updated_at) * 1000)"
                    "::bigint, metadata FROM nb_sessions "
                    "ORDER BY updated_at DESC, key";
  if (limit > 0)
    sql += " LIMIT " + std::to_string(limit);
  if (auto err = db.exec(sql, {}, &rows))
    return err;
  session_listing out;
  for (auto& r : rows) {
    session_activity a;
    a.key = r[0].value_or("");
    a.updated_ms = std::stoll(r[1].value_or("0"));
    read_activity_meta(
      nlohmann::json::parse(r[2].value_or("{}"), nullptr, false), a);
    out.sessions.push_back(std::move(a));
  }
  return out;
}

} // namespace nb
