// What the WebUI's sessions page needs of PostgreSQL, as session_catalog.cpp
// gives it from the files: every session's card, a metadata change that
// keeps every message, and deleting a session.
#include <nlohmann/json.hpp>

#include "actors/store/pg_sessions.hpp"
#include "actors/store/session_files.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

using ojson = nlohmann::ordered_json;

constexpr int preview_page = 16;

/// The first user message with words, read a page at a time (LIKE only
/// skips rows that cannot be a user message; card_preview decides).
caf::error fill_preview(pg_connection& db, session_card& card) {
  for (int offset = 0;; offset += preview_page) {
    pg_rows rows;
    if (auto err = db.exec(
          "SELECT body FROM nb_messages WHERE key = $1 "
          "AND body LIKE '%\"user\"%' ORDER BY seq "
          "LIMIT $2 OFFSET $3",
          {card.key, std::to_string(preview_page), std::to_string(offset)},
          &rows))
      return err;
    for (auto& r : rows)
      if (card.preview = card_preview(r[0].value_or("")); !card.preview.empty())
        return {};
    if (rows.size() < preview_page)
      return {};
  }
}

} // namespace

caf::expected<session_catalog> pg_catalog_sessions(pg_connection& db,
                                                   int32_t limit) {
  pg_rows rows;
  std::string sql = "SELECT s.key, (extract(epoch FROM s.updated_at) * 1000)"
                    "::bigint, s.metadata, (SELECT count(*) FROM nb_messages "
                    "m WHERE m.key = s.key) FROM nb_sessions s "
                    "ORDER BY s.updated_at DESC, s.key";
  if (limit > 0)
    sql += " LIMIT " + std::to_string(limit);
  if (auto err = db.exec(sql, {}, &rows))
    return err;
  session_catalog out;
  for (auto& r : rows) {
    session_card card;
    card.key = r[0].value_or("");
    card.updated_ms = std::stoll(r[1].value_or("0"));
    read_card_meta(ojson::parse(r[2].value_or("{}"), nullptr, false), card);
    card.messages = static_cast<int32_t>(std::stoll(r[3].value_or("0")));
    if (auto err = fill_preview(db, card))
      return err;
    out.sessions.push_back(std::move(card));
  }
  return out;
}

caf::error pg_patch_session_meta(pg_connection& db, const std::string& key,
                                 const std::string& patch_json) {
  auto patch = ojson::parse(patch_json, nullptr, false);
  if (!patch.is_object())
    return caf::make_error(errc::invalid_arguments,
                           "the metadata change is not a JSON object");
  return db.transaction([&]() -> caf::error {
    pg_rows rows;
    if (auto err = db.exec("SELECT metadata FROM nb_sessions WHERE key = $1 "
                           "FOR UPDATE",
                           {key}, &rows))
      return err;
    if (rows.empty())
      return caf::make_error(errc::invalid_arguments,
                             "no session " + key + " is stored");
    auto meta = ojson::parse(rows[0][0].value_or("{}"), nullptr, false);
    if (!meta.is_object())
      meta = ojson::object();
    meta.merge_patch(patch);
    // A write, as the file store's rewrite is: the session moves up the list.
    return db.exec("UPDATE nb_sessions SET metadata = $2, updated_at = now() "
                   "WHERE key = $1",
                   {key, meta.dump()});
  });
}

caf::error pg_remove_session(pg_connection& db, const std::string& key) {
  if (key.empty())
    return caf::make_error(errc::store_failed,
                           "empty session key (PostgreSQL store)");
  // Its messages go with it (ON DELETE CASCADE); none stored is no error.
  return db.exec("DELETE FROM nb_sessions WHERE key = $1", {key});
}

} // namespace nb
