// The session store's promises, checked the same way against both stores:
// the session files (sessionStore "file") and a real PostgreSQL server
// (sessionStore "postgres").
#include <doctest/doctest.h>

#include <cstdlib>
#include <functional>
#include <thread>
#include <unistd.h>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include <nlohmann/json.hpp>

#include "actors/store/pg_store.hpp"
#include "actors/store/session_files.hpp"
#include "tests/store/pg_server.hpp"
#include "tests/store/store_backends.hpp"
#include "tests/store/temp_dir.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE_FIXTURE(system_fixture, "a missing session loads as not existing on every store") {
  on_every_store(sys, [&](caf::scoped_actor& self, const store_actor& s) {
    auto snap = load(self, s, fresh("api:none"));
    CHECK_FALSE(snap.existed);
    CHECK(snap.messages.empty());
    CHECK(snap.metadata_json == "{}");
  });
}

TEST_CASE_FIXTURE(system_fixture, "appends load back in order with their fields on every store") {
  on_every_store(sys, [&](caf::scoped_actor& self, const store_actor& s) {
    auto key = fresh("api:order");
    REQUIRE_FALSE(append(self, s, key, {R"({"role":"user","content":"one"})"}));
    REQUIRE_FALSE(append(self, s, key,
                         {R"({"role":"assistant","content":"two","extra":{"x":1}})",
                          "{\n \"role\": \"user\",\n \"content\": \"three\"\n}"}));
    auto snap = load(self, s, key);
    CHECK(snap.existed);
    REQUIRE(snap.messages.size() == 3);
    CHECK(json::parse(snap.messages[0])["content"] == "one");
    CHECK(json::parse(snap.messages[1])["extra"]["x"] == 1);
    // A text spanning lines is kept as the same object, on one line.
    CHECK(snap.messages[2].find('\n') == std::string::npos);
    CHECK(json::parse(snap.messages[2])["content"] == "three");
    CHECK(snap.skipped_lines == 0);
  });
}

TEST_CASE_FIXTURE(system_fixture, "concurrent appends on many keys land in order per key on every store") {
  on_every_store(sys, [&](caf::scoped_actor& self, const store_actor& s) {
    constexpr int keys = 24, per_key = 15;
    // All requests in flight at once; each key's must still land in order.
    for (int m = 0; m < per_key; ++m)
      for (int k = 0; k < keys; ++k)
        self->send(s, session_append{fresh("k" + std::to_string(k)),
                                     {json{{"role", "user"}, {"n", m}}.dump()}});
    int oks = 0;
    bool timed_out = false;
    while (oks < keys * per_key && !timed_out)
      self->receive([&](caf::ok_atom) { ++oks; },
                    caf::after(store_wait) >> [&] { timed_out = true; });
    REQUIRE_FALSE(timed_out);
    for (int k = 0; k < keys; ++k) {
      auto snap = load(self, s, fresh("k" + std::to_string(k)));
      REQUIRE(snap.messages.size() == per_key);
      for (int m = 0; m < per_key; ++m)
        CHECK(json::parse(snap.messages[m])["n"] == m);
    }
  });
}

TEST_CASE_FIXTURE(system_fixture, "replace swaps the whole session and later appends follow it on every store") {
  on_every_store(sys, [&](caf::scoped_actor& self, const store_actor& s) {
    auto key = fresh("api:replace");
    REQUIRE_FALSE(append(self, s, key, {R"({"role":"user","content":"old"})",
                                        R"({"role":"assistant","content":"old"})"}));
    REQUIRE_FALSE(replace(self, s, key, R"({"last_consolidated":2})",
                          {R"({"role":"user","content":"new"})"}));
    REQUIRE_FALSE(append(self, s, key, {R"({"role":"assistant","content":"after"})"}));
    auto snap = load(self, s, key);
    REQUIRE(snap.messages.size() == 2);
    CHECK(json::parse(snap.messages[0])["content"] == "new");
    CHECK(json::parse(snap.messages[1])["content"] == "after");
    CHECK(json::parse(snap.metadata_json)["last_consolidated"] == 2);
  });
}

TEST_CASE_FIXTURE(system_fixture, "replace keeps the first messages it is told to keep on every store") {
  on_every_store(sys, [&](caf::scoped_actor& self, const store_actor& s) {
    auto key = fresh("api:keep");
    std::vector<std::string> old;
    for (int i = 0; i < 5; ++i)
      old.push_back(json{{"role", "user"}, {"n", i}}.dump());
    REQUIRE_FALSE(append(self, s, key, old));
    // A session holding only messages 3 and 4 rewrites its metadata (and
    // those two, changed): the archived 0..2 stay as they were.
    REQUIRE_FALSE(replace(self, s, key, R"({"last_consolidated":3})",
                          {json{{"role", "user"}, {"n", 30}}.dump(),
                           json{{"role", "user"}, {"n", 40}}.dump()},
                          3));
    REQUIRE_FALSE(append(self, s, key, {json{{"role", "user"}, {"n", 5}}.dump()}));
    auto snap = load(self, s, key);
    REQUIRE(snap.messages.size() == 6);
    std::vector<int> ns;
    for (auto& m : snap.messages)
      ns.push_back(json::parse(m)["n"].get<int>());
    CHECK(ns == std::vector<int>{0, 1, 2, 30, 40, 5});
    CHECK(json::parse(snap.metadata_json)["last_consolidated"] == 3);
    // Asked to keep more than there is: refused, nothing changed.
    auto err = replace(self, s, key, "{}", {}, 7);
    REQUIRE(err);
    CHECK(err.code() == static_cast<uint8_t>(errc::store_failed));
    CHECK(load(self, s, key).messages.size() == 6);
  });
}

TEST_CASE_FIXTURE(system_fixture, "sessions are listed newest first with their last write on every store") {
  on_every_store(sys, [&](caf::scoped_actor& self, const store_actor& s) {
    auto older = fresh("telegram:older"), newer = fresh("telegram:newer");
    REQUIRE_FALSE(append(self, s, older, {R"({"role":"user","content":"a"})"}));
    // Past the clock's granularity (file mtimes, timestamptz).
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    REQUIRE_FALSE(append(self, s, newer, {R"({"role":"user","content":"b"})"}));
    session_listing got;
    self->request(s, store_wait, session_list{0})
      .receive(
        [&](session_listing& l) { got = std::move(l); },
        [&](caf::error& err) { FAIL("list failed: " << caf::to_string(err)); });
    auto pos = [&](const std::string& k) {
      for (size_t i = 0; i < got.sessions.size(); ++i)
        if (got.sessions[i].key == k)
          return static_cast<int>(i);
      return -1;
    };
    REQUIRE(pos(older) >= 0);
    REQUIRE(pos(newer) >= 0);
    CHECK(pos(newer) < pos(older));
    auto& n = got.sessions[static_cast<size_t>(pos(newer))];
    auto& o = got.sessions[static_cast<size_t>(pos(older))];
    CHECK(n.updated_ms >= o.updated_ms);
    auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch()).count();
    CHECK(std::llabs(now_ms - n.updated_ms) < 60000);
    // A limit keeps the newest.
    self->request(s, store_wait, session_list{1})
      .receive(
        [&](session_listing& l) { got = std::move(l); },
        [&](caf::error& err) { FAIL("list failed: " << caf::to_string(err)); });
    CHECK(got.sessions.size() == 1);
  });
}

TEST_CASE_FIXTURE(system_fixture,
                  "the listing carries the archived flag and the last chat "
                  "from the metadata on every store") {
  on_every_store(sys, [&](caf::scoped_actor& self, const store_actor& s) {
    auto archived = fresh("websocket:archived"), unified = fresh("unified");
    REQUIRE_FALSE(replace(self, s, archived, R"({"archived": true})",
                          {R"({"role":"user","content":"a"})"}, 0));
    REQUIRE_FALSE(replace(self, s, unified,
                          R"({"last_channel": "discord:chat-42"})",
                          {R"({"role":"user","content":"b"})"}, 0));
    session_listing got;
    self->request(s, store_wait, session_list{0})
      .receive(
        [&](session_listing& l) { got = std::move(l); },
        [&](caf::error& err) { FAIL("list failed: " << caf::to_string(err)); });
    int seen = 0;
    for (auto& a : got.sessions) {
      if (a.key == archived) {
        ++seen;
        CHECK(a.archived);
        CHECK(a.last_channel.empty());
      } else if (a.key == unified) {
        ++seen;
        CHECK_FALSE(a.archived);
        CHECK(a.last_channel == "discord:chat-42");
      }
    }
    CHECK(seen == 2);
  });
}

TEST_CASE_FIXTURE(system_fixture, "bad input is refused with store_failed and nothing written on every store") {
  on_every_store(sys, [&](caf::scoped_actor& self, const store_actor& s) {
    auto key = fresh("api:bad");
    auto err = append(self, s, key, {R"({"role":"user"})", "[1,2]"});
    REQUIRE(err);
    CHECK(err.code() == static_cast<uint8_t>(errc::store_failed));
    CHECK(store_error_text(err).find("message 1 is not a JSON object")
          != std::string::npos);
    CHECK_FALSE(load(self, s, key).existed);
    CHECK(replace(self, s, key, "[]", {}).code()
          == static_cast<uint8_t>(errc::store_failed));
    CHECK(append(self, s, "", {R"({"role":"user"})"}).code()
          == static_cast<uint8_t>(errc::store_failed));
  });
}

TEST_CASE_FIXTURE(system_fixture, "an acknowledged append survives its host crashing on every store") {
  temp_dir dir;
  for (auto& b : backends(dir)) {
    CAPTURE(b.name);
    auto key = fresh("api:durable");
    {
      auto s = b.make(sys);
      caf::scoped_actor self{sys};
      REQUIRE_FALSE(append(self, s, key, {R"({"role":"user","content":"kept"})"}));
      stop(s);
    }
    b.crash(); // PostgreSQL: killed without a checkpoint, then restarted
    auto s = b.make(sys);
    caf::scoped_actor self{sys};
    auto snap = load(self, s, key);
    REQUIRE(snap.messages.size() == 1);
    CHECK(json::parse(snap.messages[0])["content"] == "kept");
    stop(s);
  }
}

TEST_CASE_FIXTURE(system_fixture, "a PostgreSQL store that cannot connect answers store_failed naming the cause") {
  // A closed port: the error says so, and never shows the connection string.
  auto s = spawn_pg_store(sys, "host=127.0.0.1 port=1 user=nb password=hunter2 "
                               "connect_timeout=3", 1, {});
  caf::scoped_actor self{sys};
  caf::error err;
  self->request(s, store_wait, session_load{"api:x"})
    .receive([](session_snapshot&) {}, [&](caf::error& e) { err = e; });
  REQUIRE(err);
  CHECK(err.code() == static_cast<uint8_t>(errc::store_failed));
  auto text = store_error_text(err);
  CHECK(text.find("cannot connect") != std::string::npos);
  CHECK(text.find("hunter2") == std::string::npos);
  stop(s);
}
