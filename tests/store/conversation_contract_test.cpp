// A session's saved Responses state (issue 19) through the store actor, the
// same contract on the three stores: the session files, a real PostgreSQL
// server and the temporary chats' memory store. A write sets it or drops
// it; one that does not set it carries it while the messages it covers
// stay (the new ones join its pending messages, an attached image as a
// data-URL part); a rewrite that loses them (/new) drops it; a turn reads
// just the state. A database made before the state column upgrades.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/store/memory_store.hpp"
#include "actors/store/pg_conn.hpp"
#include "tests/store/store_backends.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

const json saved_record = json::parse(
  R"({"kind": "openai_responses", "provider": "openai_compat:openai:https://api.openai.com/v1", "model": "gpt-5", "version": 1, "payload": {"items": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}, {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAB-opaque"}], "context_tokens": 321}, "pending_messages": []})");

std::string said(const char* role, const std::string& text) {
  return json{{"role", role}, {"content", text}, {"timestamp", "t"}}.dump();
}

conversation_state state_of(const json& record,
                            std::vector<std::string> pending = {}) {
  return {std::make_shared<const std::string>(record.dump()),
          std::move(pending)};
}

/// The three stores, as store actors.
std::vector<backend> conversation_backends(const temp_dir& dir) {
  auto out = backends(dir);
  out.push_back({"memory",
                 [](caf::actor_system& sys) {
                   return caf::actor_cast<store_actor>(
                     sys.spawn(memory_store_impl));
                 },
                 [] {}});
  return out;
}

session_snapshot turn_read(caf::scoped_actor& self, const store_actor& s,
                           const std::string& key) {
  session_snapshot out;
  self->request(s, store_wait, session_load{key, true})
    .receive([&](session_snapshot& snap) { out = std::move(snap); },
             [&](caf::error& err) {
               FAIL("state read failed: " << caf::to_string(err));
             });
  return out;
}

caf::error write(caf::scoped_actor& self, const store_actor& s,
                 caf::message rq) {
  caf::error out;
  self->request(caf::actor_cast<caf::actor>(s), store_wait, std::move(rq))
    .receive([](caf::ok_atom) {}, [&](caf::error& err) { out = err; });
  return out;
}

caf::message append_setting(const std::string& key,
                            std::vector<std::string> msgs,
                            conversation_state state) {
  return caf::make_message(
    session_append{key, std::move(msgs), true, std::move(state)});
}

caf::message replace_setting(const std::string& key,
                             std::vector<std::string> msgs,
                             conversation_state state, uint64_t keep = 0) {
  return caf::make_message(session_replace{key, "{}", std::move(msgs), keep,
                                           true, std::move(state)});
}

/// The pending messages of the state a turn reads (null: no state).
json pending_read(caf::scoped_actor& self, const store_actor& s,
                  const std::string& key) {
  auto snap = turn_read(self, s, key);
  if (!snap.conversation.record)
    return nullptr;
  return json::parse(*snap.conversation.record)["pending_messages"];
}

/// A PNG's signature and header start: what marks an image attachment.
const std::string tiny_png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01", 20);

} // namespace

TEST_CASE_FIXTURE(system_fixture,
                  "a saved Responses state is set, read, carried and dropped "
                  "the same way on every store") {
  temp_dir dir;
  auto image = dir.path + "/pixel.png";
  spit(image, tiny_png);
  for (auto& b : conversation_backends(dir)) {
    CAPTURE(b.name);
    auto s = b.make(sys);
    caf::scoped_actor self{sys};
    auto key = fresh("websocket:state-" + b.name);

    // A turn of a chat with no state reads none.
    REQUIRE_FALSE(append(self, s, key, {said("user", "hi")}));
    auto none = turn_read(self, s, key);
    CHECK(none.existed);
    CHECK_FALSE(none.has_conversation);
    CHECK_FALSE(none.conversation.record);

    // The turn's answer sets it, its own pending messages included.
    REQUIRE_FALSE(write(self, s,
                        append_setting(key, {said("assistant", "hello")},
                                       state_of(saved_record,
                                                {said("user", "and?")}))));
    auto got = turn_read(self, s, key);
    CHECK(got.has_conversation);
    CHECK(got.messages.empty());
    REQUIRE(got.conversation.record);
    auto record = json::parse(*got.conversation.record);
    CHECK(record["payload"] == saved_record["payload"]);
    CHECK(record["pending_messages"]
          == json::array({{{"role", "user"}, {"content", "and?"}}}));
    auto full = load(self, s, key);
    CHECK(full.has_conversation);
    CHECK(full.messages.size() == 2);

    // Written without setting it: carried, the messages join its pending
    // ones as the model is given them (an image as a data URL).
    auto with_image = json{{"role", "user"}, {"content", "see"},
                           {"media", {image}}, {"timestamp", "t"}}.dump();
    REQUIRE_FALSE(append(self, s, key, {with_image}));
    auto pending = pending_read(self, s, key);
    REQUIRE(pending.is_array());
    REQUIRE(pending.size() == 2);
    auto parts = pending[1]["content"];
    REQUIRE(parts.is_array());
    CHECK(parts[0]["type"] == "image_url");
    CHECK(parts[0]["image_url"]["url"].get<std::string>().rfind(
            "data:image/png;base64,", 0)
          == 0);
    CHECK(parts.back()["text"] == "see");

    // A rewrite that keeps every message it covers carries it too.
    auto all = load(self, s, key).messages;
    REQUIRE(all.size() == 3);
    REQUIRE_FALSE(replace(self, s, key, R"({"title":"T"})",
                          {all[2], said("assistant", "a pixel")}, 2));
    pending = pending_read(self, s, key);
    REQUIRE(pending.size() == 3);
    CHECK(pending[2]["content"] == "a pixel");
    CHECK(load(self, s, key).messages.size() == 4);

    // One that loses them drops it (a trim, /new): the whole transcript
    // is sent next.
    REQUIRE_FALSE(replace(self, s, key, "{}", {said("user", "fresh")}));
    CHECK(pending_read(self, s, key).is_null());
    CHECK_FALSE(load(self, s, key).has_conversation);

    // Set again, then dropped by a write that sets none (an answer that
    // cannot be resumed, the archive mark moving).
    REQUIRE_FALSE(write(self, s,
                        replace_setting(key, {said("user", "fresh")},
                                        state_of(saved_record))));
    CHECK(turn_read(self, s, key).has_conversation);
    REQUIRE_FALSE(
      write(self, s, replace_setting(key, {}, conversation_state{}, 1)));
    CHECK_FALSE(turn_read(self, s, key).has_conversation);
    CHECK(load(self, s, key).messages.size() == 1);
    stop(s);
  }
}

TEST_CASE_FIXTURE(system_fixture,
                  "a PostgreSQL database made before the state column "
                  "upgrades and keeps its sessions") {
  auto db_name = "nb_before_state_" + std::to_string(::getpid());
  pg_connection admin{shared_pg_server().dsn()};
  REQUIRE_FALSE(admin.exec("DROP DATABASE IF EXISTS " + db_name));
  REQUIRE_FALSE(admin.exec("CREATE DATABASE " + db_name));
  auto dsn = shared_pg_server().dsn();
  dsn.replace(dsn.find("dbname=postgres"), 15, "dbname=" + db_name);
  {
    // The tables as the store made them before.
    pg_connection old{dsn};
    REQUIRE_FALSE(old.exec(
      "CREATE TABLE nb_sessions (key text PRIMARY KEY, metadata text NOT "
      "NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now(), "
      "updated_at timestamptz NOT NULL DEFAULT now())"));
    REQUIRE_FALSE(old.exec(
      "CREATE TABLE nb_messages (key text NOT NULL REFERENCES "
      "nb_sessions(key) ON DELETE CASCADE, seq bigint NOT NULL, body text "
      "NOT NULL, PRIMARY KEY (key, seq))"));
    REQUIRE_FALSE(old.exec("INSERT INTO nb_sessions (key, metadata) VALUES "
                           "('api:old', '{\"title\":\"kept\"}')"));
    REQUIRE_FALSE(old.exec("INSERT INTO nb_messages (key, seq, body) VALUES "
                           "('api:old', 1, $1)",
                           {said("user", "from before")}));
  }
  auto s = spawn_pg_store(sys, dsn, 2, {});
  caf::scoped_actor self{sys};
  auto before = load(self, s, "api:old");
  CHECK(before.existed);
  CHECK_FALSE(before.has_conversation);
  REQUIRE(before.messages.size() == 1);
  CHECK(json::parse(before.metadata_json)["title"] == "kept");
  REQUIRE_FALSE(write(self, s,
                      append_setting("api:old", {said("assistant", "now")},
                                     state_of(saved_record))));
  auto got = turn_read(self, s, "api:old");
  REQUIRE(got.conversation.record);
  CHECK(json::parse(*got.conversation.record)["payload"]
        == saved_record["payload"]);
  CHECK(load(self, s, "api:old").messages.size() == 2);
  stop(s);
  // The store's connections close with its workers; then the database goes.
  auto dropped = admin.exec("DROP DATABASE IF EXISTS " + db_name
                            + " WITH (FORCE)");
  CHECK_FALSE(dropped);
}
