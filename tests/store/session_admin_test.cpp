// The WebUI's session messages against real files (issue 20, part 3): the
// catalog (titles, archive flags, first user message, newest first),
// metadata changes that keep every message, deletion; the same through the
// store actor's wider view; and a temporary chat's memory store.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/store/memory_store.hpp"
#include "actors/store/session_files.hpp"
#include "actors/store/session_store.hpp"
#include "messages/errc.hpp"
#include "messages/session_admin.hpp"
#include "tests/store/temp_dir.hpp"
#include "tests/support/system_fixture.hpp"

namespace {

using namespace nb;
using nb::test::temp_dir;
using json = nlohmann::json;
using namespace std::chrono_literals;

std::string user(const std::string& text) {
  return json{{"role", "user"}, {"content", text}}.dump();
}

std::string assistant_calling() {
  return json{{"role", "assistant"},
              {"content", nullptr},
              {"tool_calls",
               {{{"id", "c1"},
                 {"type", "function"},
                 {"function", {{"name", "list_dir"},
                               {"arguments", "{\"path\":\".\"}"}}}}}}}
    .dump();
}

json meta_of(const std::string& dir, const std::string& key) {
  auto snap = load_session(dir, key);
  REQUIRE(snap);
  return json::parse(snap->metadata_json);
}

} // namespace

TEST_CASE("the catalog lists sessions newest first with title and preview") {
  temp_dir d;
  REQUIRE_FALSE(append_session(d.path, "telegram:1",
                               {user("first   question\nhere"), assistant_calling()}));
  // Modification times must differ for the order to mean something.
  std::this_thread::sleep_for(20ms);
  REQUIRE_FALSE(append_session(d.path, "work:websocket:abc",
                               {json{{"role", "user"},
                                     {"content",
                                      {{{"type", "text"}, {"text", "parts"}}}}}
                                  .dump()}));
  REQUIRE_FALSE(patch_session_meta(d.path, "telegram:1",
                                   R"({"title":"Plants","archived":true})"));
  // Touch the first again: it is the newest now.
  std::this_thread::sleep_for(20ms);
  REQUIRE_FALSE(append_session(d.path, "telegram:1", {user("later")}));
  auto cat = catalog_sessions(d.path);
  REQUIRE(cat.sessions.size() == 2);
  auto& a = cat.sessions[0];
  auto& b = cat.sessions[1];
  CHECK(a.key == "telegram:1");
  CHECK(a.title == "Plants");
  CHECK(a.archived);
  CHECK(a.preview == "first question here");
  CHECK(a.messages == 3);
  CHECK(a.updated_ms >= b.updated_ms);
  CHECK(b.key == "work:websocket:abc");
  CHECK(b.title.empty());
  CHECK_FALSE(b.archived);
  CHECK(b.preview == "parts");
  CHECK(catalog_sessions(d.path, 1).sessions.size() == 1);
}

TEST_CASE("a metadata change keeps every message and other metadata") {
  temp_dir d;
  REQUIRE_FALSE(append_session(d.path, "cli:x", {user("a"), assistant_calling()}));
  REQUIRE_FALSE(replace_session(d.path, "cli:x",
                                R"({"last_consolidated":0,"mine":1})",
                                {}, 2));
  REQUIRE_FALSE(patch_session_meta(d.path, "cli:x", R"({"title":"T"})"));
  auto meta = meta_of(d.path, "cli:x");
  CHECK(meta["title"] == "T");
  CHECK(meta["mine"] == 1);
  auto snap = load_session(d.path, "cli:x");
  REQUIRE(snap);
  REQUIRE(snap->messages.size() == 2);
  CHECK(json::parse(snap->messages[1])["tool_calls"][0]["function"]["name"]
        == "list_dir");
  // null removes a key (unarchive, clearing a title).
  REQUIRE_FALSE(patch_session_meta(d.path, "cli:x", R"({"title":null})"));
  CHECK_FALSE(meta_of(d.path, "cli:x").contains("title"));
  // No file: an error naming the key, and no file made.
  auto err = patch_session_meta(d.path, "cli:none", R"({"title":"x"})");
  REQUIRE(err);
  CHECK(err == caf::make_error(errc::invalid_arguments,
                               "no session cli:none is stored"));
  CHECK_FALSE(load_session(d.path, "cli:none")->existed);
  CHECK(patch_session_meta(d.path, "cli:x", "[1]"));
}

TEST_CASE("deleting removes the file; a missing one is no error") {
  temp_dir d;
  REQUIRE_FALSE(append_session(d.path, "slack:c", {user("bye")}));
  auto file = d.path + "/" + session_file_name("slack:c");
  REQUIRE(std::filesystem::exists(file));
  CHECK_FALSE(remove_session(d.path, "slack:c"));
  CHECK_FALSE(std::filesystem::exists(file));
  CHECK_FALSE(load_session(d.path, "slack:c")->existed);
  CHECK_FALSE(remove_session(d.path, "slack:c"));
  CHECK(catalog_sessions(d.path).sessions.empty());
}

TEST_CASE("the store actor answers the WebUI's messages in key order") {
  temp_dir d;
  nb::test::system_fixture f;
  auto store = caf::actor_cast<store_admin_actor>(
    spawn_store(f.sys, d.path, 2, stats_actor{}));
  caf::scoped_actor self{f.sys};
  // Sent without waiting: one key's append, rename and delete in order.
  self->send(store, session_append{"api:1", {user("hello")}});
  self->send(store, session_patch{"api:1", R"({"title":"Hi"})"});
  self->send(store, session_append{"api:2", {user("keep me")}});
  int oks = 0;
  self->receive_for(oks, 3)([](caf::ok_atom) {},
                            [](caf::error& e) { FAIL(to_string(e)); });
  self->request(store, 10s, session_catalog_request{}).receive(
    [&](session_catalog& c) {
      REQUIRE(c.sessions.size() == 2);
      for (auto& s : c.sessions)
        if (s.key == "api:1")
          CHECK(s.title == "Hi");
    },
    [](caf::error& e) { FAIL(to_string(e)); });
  self->send(store, session_remove{"api:1"});
  self->send(store, session_append{"api:1", {user("again")}});
  oks = 0;
  self->receive_for(oks, 2)([](caf::ok_atom) {},
                            [](caf::error& e) { FAIL(to_string(e)); });
  // The append after the removal made a fresh file, without the title.
  auto snap = load_session(d.path, "api:1");
  REQUIRE(snap);
  CHECK(snap->messages.size() == 1);
  CHECK_FALSE(json::parse(snap->metadata_json).contains("title"));
  self->request(store, 10s, session_patch{"api:9", R"({"title":"x"})"})
    .receive([](caf::ok_atom) { FAIL("patched a missing session"); },
             [](caf::error& e) {
               CHECK(e.code() == static_cast<uint8_t>(errc::invalid_arguments));
             });
  self->send_exit(store, caf::exit_reason::user_shutdown);
}

TEST_CASE("a temporary chat's memory store writes nothing and lists nothing") {
  temp_dir d;
  nb::test::system_fixture f;
  auto mem = f.sys.spawn(memory_store_impl);
  caf::scoped_actor self{f.sys};
  auto ok = [&](auto msg) {
    self->request(mem, 5s, std::move(msg))
      .receive([](caf::ok_atom) {},
               [](caf::error& e) { FAIL(to_string(e)); });
  };
  ok(session_append{"websocket:tmp-1", {user("a"), user("b")}});
  ok(session_replace{"websocket:tmp-1", R"({"k":1})", {user("c")}, 1});
  ok(session_patch{"websocket:tmp-1", R"({"title":"T"})"});
  self->request(mem, 5s, session_load{"websocket:tmp-1"}).receive(
    [](session_snapshot& s) {
      CHECK(s.existed);
      REQUIRE(s.messages.size() == 2);
      CHECK(json::parse(s.messages[1])["content"] == "c");
      auto meta = json::parse(s.metadata_json);
      CHECK(meta["k"] == 1);
      CHECK(meta["title"] == "T");
    },
    [](caf::error& e) { FAIL(to_string(e)); });
  self->request(mem, 5s, session_list{}).receive(
    [](session_listing& l) { CHECK(l.sessions.empty()); },
    [](caf::error& e) { FAIL(to_string(e)); });
  self->request(mem, 5s, session_catalog_request{}).receive(
    [](session_catalog& c) { CHECK(c.sessions.empty()); },
    [](caf::error& e) { FAIL(to_string(e)); });
  self->request(mem, 5s, session_replace{"websocket:tmp-1", "{}", {}, 5})
    .receive([](caf::ok_atom) { FAIL("kept more than it holds"); },
             [](caf::error&) {});
  ok(session_remove{"websocket:tmp-1"});
  self->request(mem, 5s, session_load{"websocket:tmp-1"}).receive(
    [](session_snapshot& s) { CHECK_FALSE(s.existed); },
    [](caf::error& e) { FAIL(to_string(e)); });
  self->send_exit(mem, caf::exit_reason::user_shutdown);
  CHECK(std::filesystem::is_empty(d.path));
}
