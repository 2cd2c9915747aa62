// When the inbox writes settle records: with the next message's write, or
// alone once settle_delay is over, and before the drain at shutdown
// answers (a settle needs no fsync; written at once it cost the journal's
// worker a round trip per turn).
#include <doctest/doctest.h>

#include <chrono>
#include <optional>
#include <thread>

#include <caf/all.hpp>

#include "actors/inbox/journal_records.hpp"
#include "tests/inbox/inbox_probe.hpp"
#include "tests/inbox/samples.hpp"
#include "tests/support/eventually.hpp"

using namespace nb;
using nb::test::inbox_probe;
using nb::test::text_msg;

TEST_CASE("a settle rides with the next message's write, or goes alone "
          "once its delay is over") {
  // A settle record needs no fsync; written at once it cost the journal's
  // worker a round trip of its own for every turn.
  inbox_probe p;
  auto cfg = p.config();
  cfg.settle_delay = std::chrono::milliseconds(1500);
  p.start(cfg);
  auto live = [&] { return inbox::read_journal(p.journal(), 100).live.size(); };
  auto first = p.put(text_msg("42", "first", "1"));
  REQUIRE(first);
  REQUIRE(p.next());
  p.self->send(p.inbox, inbox_settle{first->id});
  // Long enough for a write at once (what the inbox did before) to be on
  // disk, well short of the delay.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(live() == 1);
  // The next message's write carries it.
  auto second = p.put(text_msg("42", "second", "2"));
  REQUIRE(second);
  REQUIRE(p.next());
  auto img = inbox::read_journal(p.journal(), 100);
  REQUIRE(img.live.size() == 1);
  CHECK(img.live[0].id == second->id);
  // With nothing else to carry it, it goes alone after the delay.
  p.self->send(p.inbox, inbox_settle{second->id});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(live() == 1);
  CHECK(test::eventually([&] { return live() == 0; }, std::chrono::seconds(5)));
  // A restart finds nothing to deliver again.
  p.stop();
  p.start();
  CHECK_FALSE(p.next(std::chrono::milliseconds(300)));
}

TEST_CASE("the drain writes what its turns settled before it answers") {
  // At shutdown the runtime asks the inbox to drain; the settles of the
  // turns that just ended must not wait for their delay (nor be lost with
  // the process), or the next start would deliver those messages again.
  inbox_probe p;
  auto cfg = p.config();
  cfg.settle_delay = std::chrono::seconds(60);
  p.start(cfg);
  auto r = p.put(text_msg("42", "hello", "1"));
  REQUIRE(r);
  REQUIRE(p.next());
  p.self->send(p.inbox, inbox_settle{r->id});
  caf::scoped_actor runtime{p.sys};
  std::optional<int32_t> answer;
  std::thread asker([&] {
    runtime->request(p.inbox, std::chrono::seconds(10), flush_atom::value)
      .receive([&](int32_t n) { answer = n; },
               [&](caf::error& e) { FAIL(p.sys.render(e)); });
  });
  // The probe plays the router: its turns are over.
  bool asked = false;
  p.self->receive([&](flush_atom) -> int32_t {
                    asked = true;
                    return 0;
                  },
                  caf::after(std::chrono::seconds(10)) >> [] {});
  asker.join();
  REQUIRE(asked);
  REQUIRE(answer);
  CHECK(*answer == 0);
  CHECK(inbox::read_journal(p.journal(), 100).live.empty());
}
