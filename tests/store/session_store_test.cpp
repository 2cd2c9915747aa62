// The store actor: per-key order under concurrency across detached workers,
// errors as caf::error values, and workers stopping with the front.
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <thread>

#include <caf/all.hpp>

#include <nlohmann/json.hpp>

#include "actors/store/session_files.hpp"
#include "actors/store/session_store.hpp"
#include "messages/type_ids.hpp"
#include "tests/store/temp_dir.hpp"
#include "tests/support/system_fixture.hpp"

namespace {

using namespace nb;
using nb::test::temp_dir;
using json = nlohmann::json;
using namespace std::chrono_literals;

std::string store_line(const std::string& key, int seq) {
  return json{{"role", "user"}, {"content", key}, {"seq", seq}}.dump();
}

/// Loads `n` keys: enough to start every shard's worker (the keys' hashes
/// are fixed, so this is the same shards every run).
void load_many(nb::test::system_fixture& f, const store_actor& store, int n) {
  caf::scoped_actor self{f.sys};
  for (int i = 0; i < n; ++i)
    self->request(store, 10s, session_load{"key-" + std::to_string(i)})
      .receive([](const session_snapshot&) {},
               [&](caf::error& e) { FAIL(f.sys.render(e)); });
}

/// Waits (generously: only a hang reaches the bound) until `want` actors run.
bool running_becomes(nb::test::system_fixture& f, size_t want) {
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (f.sys.registry().running() != want
         && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  return f.sys.registry().running() == want;
}

} // namespace

TEST_CASE("concurrent appends on many keys all land in order per key") {
  temp_dir d;
  nb::test::system_fixture f;
  auto store = spawn_store(f.sys, d.path, 4, stats_actor{});
  caf::scoped_actor self{f.sys};
  constexpr int keys = 16;
  constexpr int per_key = 20;
  // Round robin over keys, all in flight at once.
  for (int i = 0; i < per_key; ++i)
    for (int k = 0; k < keys; ++k) {
      auto key = "chan:" + std::to_string(k);
      self->send(store,
                 session_append{
                   key, {store_line(key, 2 * i), store_line(key, 2 * i + 1)}});
    }
  int oks = 0;
  int errors = 0;
  self->receive_for(oks, keys * per_key)(
    [&](caf::ok_atom) {},
    [&](caf::error&) { ++errors; });
  CHECK(errors == 0);
  for (int k = 0; k < keys; ++k) {
    auto key = "chan:" + std::to_string(k);
    self->request(store, 10s, session_load{key}).receive(
      [&](const session_snapshot& s) {
        CHECK(s.existed);
        CHECK(s.key == key);
        CHECK(s.skipped_lines == 0);
        REQUIRE(s.messages.size() == 2 * per_key);
        for (int i = 0; i < 2 * per_key; ++i) {
          auto j = json::parse(s.messages[i]);
          CHECK(j["seq"] == i);
          CHECK(j["content"] == key);
        }
      },
      [&](caf::error& e) { FAIL(f.sys.render(e)); });
  }
  caf::anon_send_exit(store, caf::exit_reason::user_shutdown);
}

TEST_CASE("replace through the store and then load") {
  temp_dir d;
  nb::test::system_fixture f;
  auto store = spawn_store(f.sys, d.path, 2, stats_actor{});
  caf::scoped_actor self{f.sys};
  auto ok = [](caf::ok_atom) {};
  auto bad = [&](caf::error& e) { FAIL(f.sys.render(e)); };
  self->request(store, 10s, session_append{"k", {store_line("k", 0)}})
    .receive(ok, bad);
  self
    ->request(store, 10s,
              session_replace{"k", R"({"title":"t"})", {store_line("k", 7)}})
    .receive(ok, bad);
  self->request(store, 10s, session_load{"k"}).receive(
    [&](const session_snapshot& s) {
      CHECK(s.metadata_json == R"({"title":"t"})");
      REQUIRE(s.messages.size() == 1);
      CHECK(json::parse(s.messages[0])["seq"] == 7);
    },
    bad);
  self->request(store, 10s, session_load{"missing"}).receive(
    [&](const session_snapshot& s) { CHECK_FALSE(s.existed); }, bad);
  caf::anon_send_exit(store, caf::exit_reason::user_shutdown);
}

TEST_CASE("store failures come back as store_failed errors") {
  temp_dir d;
  nb::test::system_fixture f;
  auto path = d.path + "/" + session_file_name("k");
  std::filesystem::create_directory(path); // EISDIR for every operation
  auto store = spawn_store(f.sys, d.path, 2, stats_actor{});
  caf::scoped_actor self{f.sys};
  auto expect_failure = [&](caf::error& e) {
    CHECK(e.category() == caf::atom("nb"));
    CHECK(e.code() == static_cast<uint8_t>(errc::store_failed));
    CHECK(store_error_text(e).find(path) != std::string::npos);
  };
  self->request(store, 10s, session_load{"k"}).receive(
    [&](const session_snapshot&) { FAIL("load of a directory succeeded"); },
    expect_failure);
  self->request(store, 10s, session_append{"k", {store_line("k", 0)}})
    .receive([&](caf::ok_atom) { FAIL("append to a directory succeeded"); },
             expect_failure);
  self->request(store, 10s, session_append{"k", {"not json"}}).receive(
    [&](caf::ok_atom) { FAIL("a non-JSON message was stored"); },
    expect_failure);
  // The worker that failed still serves other keys.
  self->request(store, 10s, session_append{"k2", {store_line("k2", 0)}})
    .receive([](caf::ok_atom) {},
             [&](caf::error& e) { FAIL(f.sys.render(e)); });
  caf::anon_send_exit(store, caf::exit_reason::user_shutdown);
}

TEST_CASE("exiting the front stops its detached workers") {
  temp_dir d;
  nb::test::system_fixture f;
  auto baseline = f.sys.registry().running();
  auto store = spawn_store(f.sys, d.path, 3, stats_actor{});
  load_many(f, store, 30); // every shard's worker starts
  CHECK(f.sys.registry().running() == baseline + 4);
  caf::anon_send_exit(store, caf::exit_reason::user_shutdown);
  // Generous bound: only a hang (workers left behind) would reach it.
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (f.sys.registry().running() > baseline
         && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  CHECK(f.sys.registry().running() == baseline);
}

TEST_CASE("dropping the last handle also stops the workers") {
  temp_dir d;
  nb::test::system_fixture f;
  auto baseline = f.sys.registry().running();
  {
    // The front's idle timer holds it until its workers have ended: a
    // short idle limit keeps the wait short.
    auto store = spawn_store(f.sys, d.path, 2, stats_actor{}, 100ms);
    caf::scoped_actor self{f.sys};
    self->request(store, 10s, session_append{"k", {store_line("k", 0)}})
      .receive([](caf::ok_atom) {},
               [&](caf::error& e) { FAIL(f.sys.render(e)); });
  }
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (f.sys.registry().running() > baseline
         && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  CHECK(f.sys.registry().running() == baseline);
}

TEST_CASE("a shard's worker starts with its first request and ends when idle") {
  temp_dir d;
  nb::test::system_fixture f;
  auto baseline = f.sys.registry().running();
  auto store = spawn_store(f.sys, d.path, 3, stats_actor{}, 100ms);
  CHECK(f.sys.registry().running() == baseline + 1); // the front alone
  load_many(f, store, 30);
  CHECK(running_becomes(f, baseline + 4));
  CHECK(running_becomes(f, baseline + 1)); // idle: the workers ended
  { // The next request starts a worker again, and it sees what was written.
    caf::scoped_actor self{f.sys};
    self->request(store, 10s, session_append{"k", {store_line("k", 0)}})
      .receive([](caf::ok_atom) {},
               [&](caf::error& e) { FAIL(f.sys.render(e)); });
    self->request(store, 10s, session_load{"k"})
      .receive([](const session_snapshot& s) { CHECK(s.messages.size() == 1); },
               [&](caf::error& e) { FAIL(f.sys.render(e)); });
  }
  caf::anon_send_exit(store, caf::exit_reason::user_shutdown);
  CHECK(running_becomes(f, baseline));
}

TEST_CASE(
  "a key's writes keep their order while its worker ends and restarts") {
  temp_dir d;
  nb::test::system_fixture f;
  // Bursts of appends separated by about the idle limit: some arrive while
  // the shard's worker is ending, wait in the front, and go to the next one.
  auto store = spawn_store(f.sys, d.path, 2, stats_actor{}, 20ms);
  caf::scoped_actor self{f.sys};
  int seq = 0;
  std::vector<decltype(self->request(store, 30s, session_append{}))> pending;
  for (int burst = 0; burst < 30; ++burst) {
    for (int i = 0; i < 5; ++i)
      pending.push_back(self->request(
        store, 30s, session_append{"k", {store_line("k", seq++)}}));
    std::this_thread::sleep_for(std::chrono::milliseconds(10 + burst % 3 * 10));
  }
  int answered = 0;
  for (auto& p : pending)
    p.receive([&](caf::ok_atom) { ++answered; },
              [&](caf::error& e) { FAIL(f.sys.render(e)); });
  CHECK(answered == seq);
  self->request(store, 10s, session_load{"k"})
    .receive(
      [&](const session_snapshot& s) {
        REQUIRE(s.messages.size() == static_cast<size_t>(seq));
        for (int i = 0; i < seq; ++i)
          CHECK(json::parse(s.messages[static_cast<size_t>(i)])["seq"] == i);
      },
      [&](caf::error& e) { FAIL(f.sys.render(e)); });
  caf::anon_send_exit(store, caf::exit_reason::user_shutdown);
}
