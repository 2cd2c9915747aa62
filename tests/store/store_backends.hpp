// The two session stores the contract tests run against (the files and a
// real PostgreSQL server shared by the test binary) and the requests they
// make of each.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include <caf/all.hpp>
#include <doctest/doctest.h>

#include "actors/store/pg_store.hpp"
#include "actors/store/session_store.hpp"
#include "tests/store/pg_server.hpp"
#include "tests/store/temp_dir.hpp"

namespace nb::test {

inline constexpr auto store_wait = std::chrono::seconds(30);

/// One store implementation under test.
struct backend {
  std::string name;
  std::function<store_actor(caf::actor_system&)> make;
  std::function<void()> crash; ///< the host dies and comes back
};

/// The two stores; every PostgreSQL test uses fresh keys, since the server
/// is shared by the whole binary.
inline std::vector<backend> backends(const temp_dir& dir) {
  auto path = dir.path;
  return {
    {"file",
     [path](caf::actor_system& sys) { return spawn_store(sys, path, 4, {}); },
     [] {}},
    {"postgres",
     [](caf::actor_system& sys) {
       return spawn_pg_store(sys, shared_pg_server().dsn(), 4, {});
     },
     [] { shared_pg_server().crash_and_restart(); }},
  };
}

/// Keys unique per test run, so the shared database starts empty for them.
inline std::string fresh(const std::string& key) {
  static const auto run =
    std::to_string(::getpid()) + "-"
    + std::to_string(
      std::chrono::steady_clock::now().time_since_epoch().count());
  return key + ":" + run;
}

inline session_snapshot load(caf::scoped_actor& self, const store_actor& s,
                             const std::string& key) {
  session_snapshot out;
  self->request(s, store_wait, session_load{key})
    .receive(
      [&](session_snapshot& snap) { out = std::move(snap); },
      [&](caf::error& err) { FAIL("load failed: " << caf::to_string(err)); });
  return out;
}

inline caf::error append(caf::scoped_actor& self, const store_actor& s,
                         const std::string& key,
                         std::vector<std::string> msgs) {
  caf::error out;
  self->request(s, store_wait, session_append{key, std::move(msgs)})
    .receive([](caf::ok_atom) {}, [&](caf::error& err) { out = err; });
  return out;
}

inline caf::error replace(caf::scoped_actor& self, const store_actor& s,
                          const std::string& key, std::string meta,
                          std::vector<std::string> msgs, uint64_t keep = 0) {
  caf::error out;
  self
    ->request(s, store_wait,
              session_replace{key, std::move(meta), std::move(msgs), keep})
    .receive([](caf::ok_atom) {}, [&](caf::error& err) { out = err; });
  return out;
}

inline void stop(const store_actor& s) {
  caf::anon_send_exit(s, caf::exit_reason::user_shutdown);
}

/// Runs `body(self, store)` once for each store, with a store actor of its
/// own that is stopped afterwards.
template <class F>
void on_every_store(caf::actor_system& sys, F body) {
  temp_dir dir;
  for (auto& b : backends(dir)) {
    CAPTURE(b.name);
    auto s = b.make(sys);
    caf::scoped_actor self{sys};
    body(self, s);
    stop(s);
  }
}

} // namespace nb::test
