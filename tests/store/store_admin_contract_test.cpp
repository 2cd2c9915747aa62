// What the WebUI's sessions page (and the unified session's last chat) asks
// of a store, checked the same way against the session files and a real
// PostgreSQL server: the catalog's cards, a metadata change that keeps
// every message, and deleting a session.
#include <doctest/doctest.h>

#include <string>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/store/session_files.hpp"
#include "messages/errc.hpp"
#include "messages/session_admin.hpp"
#include "tests/store/store_backends.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using namespace nb::test;

namespace {

session_catalog catalog_of(caf::scoped_actor& self, const store_actor& s) {
  session_catalog out;
  self
    ->request(caf::actor_cast<store_admin_actor>(s), store_wait,
              session_catalog_request{})
    .receive([&](session_catalog& c) { out = std::move(c); },
             [&](caf::error& err) {
               FAIL("catalog failed: " << caf::to_string(err));
             });
  return out;
}

/// Not on a temporary: the card would point into a destroyed catalog.
const session_card* card_of(session_catalog&&, const std::string&) = delete;

const session_card* card_of(const session_catalog& c, const std::string& key) {
  for (auto& card : c.sessions)
    if (card.key == key)
      return &card;
  return nullptr;
}

template <class Request>
caf::error admin(caf::scoped_actor& self, const store_actor& s, Request req) {
  caf::error out;
  self
    ->request(caf::actor_cast<store_admin_actor>(s), store_wait, std::move(req))
    .receive([](caf::ok_atom) {}, [&](caf::error& err) { out = err; });
  return out;
}

} // namespace

TEST_CASE_FIXTURE(system_fixture,
                  "the catalog gives title, preview and size on every store") {
  on_every_store(sys, [&](caf::scoped_actor& self, const store_actor& s) {
    auto key = fresh("telegram:card");
    std::string long_text(300, 'x');
    REQUIRE_FALSE(replace(
      self, s, key, R"({"title": "Trip plans"})",
      {R"({"role":"system","content":"you are helpful"})",
       R"({"role":"user","content":"   "})",
       R"({"role":"user","content":[{"type":"text","text":"  pack   the )"
       R"(tent"},{"type":"image_url","image_url":{"url":"x"}}]})",
       R"({"role":"assistant","content":"ok"})"}));
    auto other = fresh("telegram:long");
    REQUIRE_FALSE(append(
      self, s, other, {R"({"role":"user","content":")" + long_text + R"("})"}));
    auto c = catalog_of(self, s);
    auto* card = card_of(c, key);
    REQUIRE(card != nullptr);
    CHECK(card->title == "Trip plans");
    CHECK_FALSE(card->archived);
    CHECK(card->messages == 4);
    // The first user message with words, folded.
    CHECK(card->preview == "pack the tent");
    auto* cut = card_of(c, other);
    REQUIRE(cut != nullptr);
    CHECK(cut->title.empty());
    CHECK(cut->preview == std::string(160, 'x') + "…");
  });
}

TEST_CASE_FIXTURE(system_fixture,
                  "a metadata change keeps every message on every store") {
  on_every_store(sys, [&](caf::scoped_actor& self, const store_actor& s) {
    auto key = fresh("unified");
    REQUIRE_FALSE(replace(self, s, key, R"({"title": "Old", "keep": {"a": 1}})",
                          {R"({"role":"user","content":"one"})",
                           R"({"role":"assistant","content":"two"})"}));
    REQUIRE_FALSE(admin(self, s, session_patch{key, R"({"title": null,
                          "archived": true, "last_channel": "discord:42"})"}));
    auto snap = load(self, s, key);
    REQUIRE(snap.messages.size() == 2);
    CHECK(nlohmann::json::parse(snap.messages[1])["content"] == "two");
    auto meta = nlohmann::json::parse(snap.metadata_json);
    CHECK_FALSE(meta.contains("title"));
    CHECK(meta["archived"] == true);
    CHECK(meta["last_channel"] == "discord:42");
    CHECK(meta["keep"]["a"] == 1);
    auto catalog = catalog_of(self, s); // the card points into it
    auto* card = card_of(catalog, key);
    REQUIRE(card != nullptr);
    CHECK(card->archived);
    // The session's own next write follows the change.
    REQUIRE_FALSE(append(self, s, key, {R"({"role":"user","content":"3"})"}));
    CHECK(load(self, s, key).messages.size() == 3);

    auto missing = fresh("api:never");
    auto err = admin(self, s, session_patch{missing, R"({"title":"x"})"});
    REQUIRE(err);
    CHECK(err.code() == static_cast<uint8_t>(errc::invalid_arguments));
    CHECK(store_error_text(err).find(missing) != std::string::npos);
    CHECK_FALSE(load(self, s, missing).existed);
    err = admin(self, s, session_patch{key, "[1]"});
    REQUIRE(err);
    CHECK(store_error_text(err).find("not a JSON object") != std::string::npos);
  });
}

TEST_CASE_FIXTURE(
  system_fixture,
  "deleting a session removes it and its messages on every store") {
  on_every_store(sys, [&](caf::scoped_actor& self, const store_actor& s) {
    auto key = fresh("websocket:gone"), kept = fresh("websocket:kept");
    REQUIRE_FALSE(append(self, s, key, {R"({"role":"user","content":"a"})"}));
    REQUIRE_FALSE(append(self, s, kept, {R"({"role":"user","content":"b"})"}));
    REQUIRE_FALSE(admin(self, s, session_remove{key}));
    CHECK_FALSE(load(self, s, key).existed);
    auto c = catalog_of(self, s);
    CHECK(card_of(c, key) == nullptr);
    CHECK(card_of(c, kept) != nullptr);
    // Gone already: no error. Written again: a new, empty history.
    CHECK_FALSE(admin(self, s, session_remove{key}));
    REQUIRE_FALSE(append(self, s, key, {R"({"role":"user","content":"c"})"}));
    CHECK(load(self, s, key).messages.size() == 1);
  });
}
