// The router's memory trimmer: memory a thread freed between live
// allocations goes back to the system at its next periodic trim, and the
// total given back reaches /stats as heap_returned_kb.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/stats/stats.hpp"
#include "actors/router/memory_trim.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using namespace std::chrono_literals;

// Under ASan (deploy/test.sh --sanitize) the sanitizer's own allocator
// holds freed memory in quarantine: there is nothing for a trim to return.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitizer_allocator = true;
#else
constexpr bool sanitizer_allocator = false;
#endif

TEST_CASE("freed heap between live blocks goes back to the system at the next trim"
          * doctest::skip(sanitizer_allocator)) {
  test::system_fixture fx;
  auto stats = spawn_stats(fx.sys);
  // 64 MB in 1 KB blocks from another thread (its own arena), then every
  // block freed but one in 16: the free runs between the survivors cover
  // whole pages that glibc keeps until a trim.
  std::vector<std::unique_ptr<char[]>> kept;
  std::thread{[&] {
    std::vector<std::unique_ptr<char[]>> all;
    for (int i = 0; i < 64 * 1024; ++i) {
      all.emplace_back(new char[1024]);
      std::fill_n(all.back().get(), 1024, static_cast<char>(i)); // resident
    }
    for (size_t i = 0; i < all.size(); i += 16)
      kept.push_back(std::move(all[i]));
  }}.join();
  // Spawned as the router does: on the scheduler, trims on threads of
  // their own.
  auto trim = fx.sys.spawn(memory_trimmer, stats, std::chrono::seconds(1));
  int64_t returned = 0;
  for (int i = 0; i < 100 && returned == 0; ++i) {
    std::this_thread::sleep_for(50ms);
    caf::scoped_actor self{fx.sys};
    self->request(stats, 5s, stats_atom::value, std::string{"json"})
      .receive(
        [&](std::string& text) {
          auto doc = nlohmann::json::parse(text, nullptr, false);
          if (doc.is_object() && doc["gauges"].contains("heap_returned_kb"))
            returned = doc["gauges"]["heap_returned_kb"].get<int64_t>();
        },
        [&](caf::error& e) { FAIL(fx.sys.render(e)); });
  }
  // About 60 MB are free in whole pages; a trim gives most of them back.
  CHECK(returned > 16 * 1024);
  caf::anon_send_exit(trim, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(stats, caf::exit_reason::user_shutdown);
}
