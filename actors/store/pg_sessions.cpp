#include "actors/store/pg_sessions.hpp"

#include <nlohmann/json.hpp>

#include "actors/store/session_conversation.hpp"
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

/// The session's saved state line (the file store's provider_state line,
/// without its '\n'; "" when there is none), its row locked for the rest
/// of the transaction.
caf::expected<std::string> locked_state_line(pg_connection& db,
                                             const std::string& key) {
  pg_rows rows;
  if (auto err = db.exec("SELECT provider_state FROM nb_sessions WHERE "
                         "key = $1 FOR UPDATE",
                         {key}, &rows))
    return err;
  return rows.empty() ? std::string{} : rows[0][0].value_or("");
}

/// The line a write's `set` asks for (no '\n'; "" drops it).
std::string pg_state_line_of(const conversation_state& set) {
  auto line = session_format::conversation_line(set);
  if (!line.empty())
    line.pop_back();
  return line;
}

/// Writes the session's state line ("" = none).
caf::error store_state_line(pg_connection& db, const std::string& key,
                            const std::string& line) {
  return db.exec("UPDATE nb_sessions SET provider_state = NULLIF($2, '') "
                 "WHERE key = $1",
                 {key, line});
}

/// The stored messages from position `keep` on, in order.
caf::expected<std::vector<std::string>>
messages_from(pg_connection& db, const std::string& key, uint64_t keep) {
  pg_rows rows;
  if (auto err = db.exec("SELECT body FROM nb_messages WHERE key = $1 "
                         "ORDER BY seq OFFSET $2",
                         {key, std::to_string(keep)}, &rows))
    return err;
  std::vector<std::string> out;
  for (auto& r : rows)
    out.push_back(r[0].value_or("{}"));
  return out;
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
         " expires_at timestamptz NOT NULL)",
         // The saved Responses conversation (the session file's
         // provider_state line); tables made before it get the column.
         "ALTER TABLE nb_sessions ADD COLUMN IF NOT EXISTS provider_state "
         "text"})
    if (auto err = db.exec(sql))
      return err;
  return caf::error{};
  });
}

caf::expected<session_snapshot> pg_load_session(pg_connection& db,
                                                const std::string& key,
                                                bool conversation_only) {
  if (auto err = check_key(key))
    return err;
  session_snapshot out;
  out.key = key;
  pg_rows rows;
  if (auto err = db.exec("SELECT metadata, provider_state FROM nb_sessions "
                         "WHERE key = $1",
                         {key}, &rows))
    return err;
  if (rows.empty())
    return out;
  out.existed = true;
  auto state_line = rows[0][1].value_or("");
  out.has_conversation = !state_line.empty();
  if (conversation_only) {
    out.conversation = session_format::conversation_of_line(state_line);
    return out;
  }
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
                             const std::vector<std::string>& messages,
                             const conversation_state* set_conversation) {
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
    auto line = locked_state_line(db, key);
    if (!line)
      return line.error();
    if (set_conversation)
      *line = pg_state_line_of(*set_conversation);
    else if (!line->empty()) // carried: the messages join its pending ones
      *line = session_format::state_line_continued(*line, *msgs);
    if (auto err = store_state_line(db, key, *line))
      return err;
    return insert_after_last(db, key, *msgs);
  });
}

caf::error pg_replace_session(pg_connection& db, const std::string& key,
                              const std::string& metadata_json,
                              const std::vector<std::string>& messages,
                              uint64_t keep,
                              const conversation_state* set_conversation) {
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
    auto line = locked_state_line(db, key);
    if (!line)
      return line.error();
    if (set_conversation) {
      *line = pg_state_line_of(*set_conversation);
    } else if (!line->empty()) {
      // Carried while the messages it covers stay, as in the files.
      auto tail = messages_from(db, key, keep);
      if (!tail)
        return tail.error();
      auto after = session_format::messages_after_state(*tail, *msgs);
      *line = after ? session_format::state_line_continued(*line,
                                                           std::move(*after))
                    : std::string{};
    }
    if (auto err = store_state_line(db, key, *line))
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
