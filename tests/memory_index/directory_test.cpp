// The memory directory in a real actor system: one index per workspace,
// started on first use; two agents' memories never mix.
#include <doctest/doctest.h>

#include <filesystem>

#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/memory_index/memory_directory.hpp"
#include "messages/memory.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/fake_embeddings.hpp"
#include "tests/support/proc_scan.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;

namespace {

struct memory_fixture {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  memory_fixture() {
    register_messages(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
  }
  ~memory_fixture() {
    stop_memory_directory(*sys);
    sys.reset();
  }
  template <class T, class... Ts>
  T ask(Ts&&... xs) {
    caf::scoped_actor self{*sys};
    T out{};
    self->request(find_memory(*sys), std::chrono::seconds(20),
                  std::forward<Ts>(xs)...)
      .receive([&](T& x) { out = std::move(x); },
               [&](caf::error& e) { FAIL(sys->render(e)); });
    return out;
  }
};

memory_query query(const std::string& ws, const std::string& text) {
  memory_query q;
  q.workspace = ws;
  q.query = text;
  return q;
}

} // namespace

TEST_CASE("two agents' memories never mix") {
  memory_fixture f;
  test::scratch_dir a, b;
  test::fake_embeddings emb;
  settings cfg;
  cfg.providers["emb"].api_base = emb.base_url();
  memory_settings mem;
  mem.embeddings.provider = "emb";
  mem.embeddings.model = "fake-embed";
  spawn_memory_directory(*f.sys, cfg, mem, stats_actor{});
  CHECK_FALSE(std::filesystem::exists(a.at("memory/index.sqlite")));
  auto saved = f.ask<std::string>(
    memory_save_request{a.path, "The cat is called Pixel", "fact"});
  CHECK(saved.find("Saved") == 0);
  f.ask<std::string>(memory_save_request{b.path, "The dog is called Rex",
                                         "fact"});
  CHECK(f.ask<memory_hits>(query(a.path, "Pixel")).hits.size() == 1);
  CHECK(f.ask<memory_hits>(query(b.path, "Pixel")).hits.empty());
  CHECK(f.ask<memory_hits>(query(a.path, "Rex")).hits.empty());
  CHECK(test::read_all(b.at("memory/MEMORY.md")).find("Pixel")
        == std::string::npos);
  auto fa = f.ask<memory_figures>(memory_stats_atom::value, a.path);
  CHECK(fa.workspace == a.path);
  CHECK(fa.chunks == 1);
  CHECK(std::filesystem::exists(a.at("memory/index.sqlite")));
}

TEST_CASE("an index unused for its idle limit ends and the next request starts a fresh one") {
  memory_fixture f;
  test::scratch_dir ws;
  spawn_memory_directory(*f.sys, settings{}, memory_settings{}, stats_actor{},
                         "", std::chrono::milliseconds{300});
  auto index_threads = [] {
    auto names = test::thread_names(static_cast<int>(::getpid()));
    auto it = names.find("nb.memindex");
    return it == names.end() ? 0L : it->second;
  };
  CHECK(index_threads() == 0);
  CHECK(f.ask<std::string>(memory_save_request{ws.path, "Tea at four", "fact"})
          .find("Saved") == 0);
  CHECK(index_threads() == 1);
  // No request for longer than the limit: the index and its thread end.
  CHECK(test::eventually([&] { return index_threads() == 0; }));
  // What it saved is on disk, and a fresh index finds it.
  CHECK(f.ask<memory_hits>(query(ws.path, "Tea")).hits.size() == 1);
  CHECK(index_threads() == 1);
  CHECK(f.ask<std::string>(memory_save_request{ws.path, "Coffee at ten", "fact"})
          .find("Saved") == 0);
  CHECK(f.ask<memory_figures>(memory_stats_atom::value, ws.path).chunks == 2);
}

TEST_CASE("memory requests for an unusable workspace get an error") {
  memory_fixture f;
  spawn_memory_directory(*f.sys, settings{}, memory_settings{}, stats_actor{});
  caf::scoped_actor self{*f.sys};
  bool refused = false;
  self->request(find_memory(*f.sys), std::chrono::seconds(5),
                query("relative/path", "x"))
    .receive([&](memory_hits&) {},
             [&](caf::error& e) {
               refused = f.sys->render(e).find("absolute") != std::string::npos;
             });
  CHECK(refused);
}

TEST_CASE("a bad save is refused with the reason and the index keeps working") {
  memory_fixture f;
  test::scratch_dir ws;
  spawn_memory_directory(*f.sys, settings{}, memory_settings{}, stats_actor{});
  caf::scoped_actor self{*f.sys};
  std::string why;
  self->request(find_memory(*f.sys), std::chrono::seconds(5),
                memory_save_request{ws.path, "x", "mood"})
    .receive([&](std::string&) {},
             [&](caf::error& e) { why = f.sys->render(e); });
  CHECK(why.find("category must be fact, profile or experience")
        != std::string::npos);
  CHECK(f.ask<std::string>(memory_save_request{ws.path, "Tea at four", ""})
          .find("Saved") == 0);
}

namespace {

template <class T>
void round_trip(caf::actor_system& sys, T original) {
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  REQUIRE_FALSE(sink(original));
  T copy{};
  caf::binary_deserializer source{sys, buf};
  REQUIRE_FALSE(source(copy));
  CHECK(caf::deep_to_string(copy) == caf::deep_to_string(original));
  CHECK(caf::deep_to_string(copy) != caf::deep_to_string(T{}));
}

} // namespace

TEST_CASE("every memory message survives the binary serializer") {
  memory_fixture f;
  auto& sys = *f.sys;
  memory_hit hit{7, "Likes tea", "memory/MEMORY.md", 3, 4, "profile",
                 "2026-11-02", 0.75};
  round_trip(sys, memory_query{"/ws", "tea", 3, "profile", true});
  round_trip(sys, hit);
  round_trip(sys, std::vector<memory_hit>{hit, hit});
  round_trip(sys, memory_hits{{hit}, "hybrid", "", 120});
  round_trip(sys, memory_save_request{"/ws", "Likes tea", "profile"});
  round_trip(sys, memory_forget_request{"/ws", 7});
  round_trip(sys, memory_figures{"/ws", 10, 9, 4096, 3, 1, 2, 5, 80, 900, 1,
                                 0, "hybrid", ""});
  // The block follows the main one: ids never collide.
  CHECK(caf::id_block::nb_memory::begin == caf::id_block::nb::end);
}
