// The inbox actor on a real journal: receipts only once on disk, in order,
// group commit, redeliveries dropped, settling and compaction, replay at
// start before anything new, the size cap.
#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <thread>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/inbox/inbox.hpp"
#include "actors/inbox/journal_records.hpp"
#include "tests/inbox/inbox_probe.hpp"
#include "tests/inbox/samples.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_scan.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using nb::test::inbox_probe;
using nb::test::text_msg;

TEST_CASE("a message is on disk when its receipt comes and then goes on") {
  inbox_probe p;
  p.start();
  auto r = p.put(text_msg("42", "hello", "1001"));
  REQUIRE(r);
  CHECK(!r->duplicate);
  CHECK(!r->id.empty());
  // On disk before the receipt: the journal holds it now.
  auto img = inbox::read_journal(p.journal(), 100);
  REQUIRE(img.live.size() == 1);
  CHECK(img.live[0].msg.content == "hello");
  auto m = p.next();
  REQUIRE(m);
  CHECK(m->content == "hello");
  CHECK(m->inbox_id == r->id);
}

TEST_CASE("a redelivery with the same platform id is one message") {
  inbox_probe p;
  p.start();
  auto a = p.put(text_msg("42", "hello", "1001"));
  auto b = p.put(text_msg("42", "hello", "1001"));
  REQUIRE(a);
  REQUIRE(b);
  CHECK(b->duplicate);
  CHECK(b->id == a->id);
  REQUIRE(p.next());
  CHECK(!p.next(std::chrono::milliseconds(200)));
  // Another chat with the same message id is another message.
  auto c = p.put(text_msg("43", "hello", "1001"));
  REQUIRE(c);
  CHECK(!c->duplicate);
  // Still a duplicate after the session settled it.
  p.self->send(p.inbox, inbox_settle{a->id});
  auto d = p.put(text_msg("42", "hello", "1001"));
  REQUIRE(d);
  CHECK(d->duplicate);
}

TEST_CASE("many messages at once share fsyncs and keep their order") {
  inbox_probe p;
  p.start();
  using handle = decltype(p.self->request(p.inbox, std::chrono::seconds(10),
                                          inbox_record{}));
  std::vector<handle> pending;
  for (int i = 0; i < 200; ++i)
    pending.push_back(p.self->request(p.inbox, std::chrono::seconds(10),
                                      inbox_record{text_msg(
                                        "c" + std::to_string(i % 5),
                                        "m" + std::to_string(i))}));
  int receipts = 0;
  for (auto& h : pending)
    h.receive([&](inbox_receipt&) { ++receipts; }, [](caf::error&) {});
  CHECK(receipts == 200);
  for (int i = 0; i < 200; ++i) {
    auto m = p.next();
    REQUIRE(m);
    CHECK(m->content == "m" + std::to_string(i));
  }
  auto img = inbox::read_journal(p.journal(), 100);
  CHECK(img.live.size() == 200);
}

TEST_CASE("settled entries are compacted away and a restart replays the rest in order") {
  inbox_probe p;
  p.start();
  std::vector<std::string> ids;
  for (int i = 0; i < 60; ++i) {
    auto r = p.put(text_msg("42", std::string(600, 'x') + std::to_string(i),
                            std::to_string(5000 + i)));
    REQUIRE(r);
    ids.push_back(r->id);
    REQUIRE(p.next());
  }
  auto full = p.journal().size();
  // The sessions store all but the last three.
  for (int i = 0; i < 57; ++i)
    p.self->send(p.inbox, inbox_settle{ids[i]});
  // One more message makes the inbox write (settle records ride along, and
  // the journal is compacted once mostly settled).
  REQUIRE(p.put(text_msg("42", "late", "6000")));
  REQUIRE(p.next());
  auto img = inbox::read_journal(p.journal(), 100);
  CHECK(img.live.size() == 4);
  CHECK(p.journal().size() < full / 3);
  p.stop(); // like kill -9: nothing is said
  p.start();
  std::vector<std::string> replayed;
  for (int i = 0; i < 4; ++i) {
    auto m = p.next();
    REQUIRE(m);
    replayed.push_back(m->content);
    CHECK(m->metadata_json.find("\"_replayed\":true") != std::string::npos);
    CHECK(!m->inbox_id.empty());
  }
  CHECK(replayed[0].substr(600) == "57");
  CHECK(replayed[2].substr(600) == "59");
  CHECK(replayed[3] == "late");
  // Redeliveries of both settled and unsettled ones stay duplicates.
  auto again = p.put(text_msg("42", "x", "5001"));
  REQUIRE(again);
  CHECK(again->duplicate);
  auto live = p.put(text_msg("42", "x", "5058"));
  REQUIRE(live);
  CHECK(live->duplicate);
  // New messages continue the sequence (never reusing an id).
  auto fresh = p.put(text_msg("42", "new"));
  REQUIRE(fresh);
  CHECK(inbox::seq_of(fresh->id) > inbox::seq_of(ids.back()));
}

TEST_CASE("a journal left by a gateway that ran beside another is delivered by the next start") {
  inbox_probe p;
  p.start(); // the first gateway on this home: journal
  REQUIRE(p.put(text_msg("42", "first's", "1001")));
  REQUIRE(p.next());
  // A second gateway on the same home while the first runs: journal.1.
  auto second = spawn_inbox(p.sys, p.config(),
                            caf::actor_cast<router_actor>(p.self),
                            stats_actor{});
  std::vector<std::string> second_ids;
  for (auto [text, id] : {std::pair{"second's one", "2001"},
                          std::pair{"second's two", "2002"}}) {
    std::optional<inbox_receipt> r;
    p.self->request(second, std::chrono::seconds(10),
                    inbox_record{text_msg("43", text, id)})
      .receive([&](inbox_receipt& x) { r = x; },
               [&](caf::error& e) { FAIL(p.sys.render(e)); });
    REQUIRE(r);
    second_ids.push_back(r->id);
    REQUIRE(p.next());
  }
  CHECK(std::filesystem::exists(p.home.at("inbox/journal.1")));
  // Both stop unsettled; the next start takes the first name and finds the
  // second's journal with nobody holding it.
  p.self->send_exit(second, caf::exit_reason::kill);
  p.self->wait_for(second);
  p.stop();
  p.start();
  std::vector<inbound_msg> got;
  for (int i = 0; i < 3; ++i) {
    auto m = p.next();
    REQUIRE(m);
    got.push_back(*m);
  }
  CHECK(got[0].content == "first's");
  CHECK(got[1].content == "second's one");
  CHECK(got[2].content == "second's two");
  // The taken-over ones have ids of this journal and carry their old ones.
  auto meta = nlohmann::json::parse(got[1].metadata_json);
  CHECK(meta["_inbox_was"] == second_ids[0]);
  CHECK(meta["_replayed"] == true);
  CHECK(inbox::seq_of(got[1].inbox_id) > inbox::seq_of(got[0].inbox_id));
  CHECK(got[1].inbox_id.substr(0, got[1].inbox_id.find('.'))
        == got[0].inbox_id.substr(0, got[0].inbox_id.find('.')));
  // Now in this journal only (the start's compaction, which runs beside
  // the replay); the other one is gone after it.
  auto left = p.home.at("inbox/journal.1");
  for (int i = 0; i < 250 && std::filesystem::exists(left); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(std::filesystem::exists(left));
  CHECK(inbox::read_journal(p.journal(), 100).live.size() == 3);
  // A redelivery of one of them is still known.
  auto again = p.put(text_msg("43", "second's two", "2002"));
  REQUIRE(again);
  CHECK(again->duplicate);
  CHECK(again->id == got[2].inbox_id);
  // A running gateway's journal is never taken: a third start beside this
  // one gets a journal of its own and delivers nothing.
  auto third = spawn_inbox(p.sys, p.config(),
                           caf::actor_cast<router_actor>(p.self),
                           stats_actor{});
  CHECK_FALSE(p.next(std::chrono::milliseconds(300)));
  p.self->send_exit(third, caf::exit_reason::kill);
  p.self->wait_for(third);
  CHECK(inbox::read_journal(p.journal(), 100).live.size() == 3);
}

TEST_CASE("a message that never gets stored is set aside after five starts") {
  inbox_probe p;
  p.start();
  REQUIRE(p.put(text_msg("42", "poison")));
  for (int start = 0; start < 5; ++start) {
    p.stop();
    p.start();
    auto m = p.next(std::chrono::seconds(2));
    if (start < 3)
      CHECK(m);
    if (!m)
      break;
    // The start's rewrite (with the count raised) is on disk before the
    // next "crash".
    for (int i = 0; i < 200; ++i) {
      auto img = inbox::read_journal(p.journal(), 10);
      if (!img.live.empty() && img.live[0].attempts == start + 1)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  CHECK(test::read_all(p.home.at("inbox/undelivered.jsonl")).find("poison")
        != std::string::npos);
}

TEST_CASE("the size cap refuses new messages with a clear error") {
  inbox_probe p;
  p.start(8192);
  int ok = 0;
  for (int i = 0; i < 20; ++i)
    if (p.put(text_msg("42", std::string(1000, 'y'))))
      ++ok;
  CHECK(ok >= 5);
  CHECK(ok < 20);
  CHECK(p.error.find("inbox_full") != std::string::npos);
  CHECK(p.error.find("gateway.inbox.maxBytes") != std::string::npos);
}

TEST_CASE("an idle inbox holds no file thread, and the next message is "
          "journaled as before") {
  // Issue 22: the worker that writes the journal retires after
  // cfg.worker_idle without a request; the next write starts another on
  // the same open (and still locked) file.
  inbox_probe p;
  auto cfg = p.config();
  cfg.worker_idle = std::chrono::milliseconds(150);
  p.start(cfg);
  auto workers = [] { return test::thread_names(::getpid())["nb.inbox"]; };
  REQUIRE(p.put(text_msg("42", "first", "1")));
  REQUIRE(p.next());
  CHECK(test::eventually([&] { return workers() == 0; },
                             std::chrono::seconds(2)));
  auto r = p.put(text_msg("42", "second", "2"));
  REQUIRE(r);
  auto img = inbox::read_journal(p.journal(), 100);
  REQUIRE(img.live.size() == 2);
  CHECK(img.live[1].msg.content == "second");
  CHECK(img.live[1].id == r->id);
  REQUIRE(p.next());
  // The file stays locked while retired: a second inbox on this home
  // takes a journal of its own.
  p.self->send(p.inbox, inbox_settle{r->id});
  CHECK(test::eventually([&] { return workers() == 0; },
                             std::chrono::seconds(2)));
  auto second = spawn_inbox(p.sys, p.config(),
                            caf::actor_cast<router_actor>(p.self),
                            stats_actor{});
  std::optional<inbox_receipt> beside;
  p.self->request(second, std::chrono::seconds(10),
                  inbox_record{text_msg("7", "beside", "3")})
    .receive([&](inbox_receipt& x) { beside = x; },
             [&](caf::error& e) { FAIL(p.sys.render(e)); });
  REQUIRE(beside);
  REQUIRE(p.next());
  CHECK(std::filesystem::exists(p.home.at("inbox/journal.1")));
  p.self->send_exit(second, caf::exit_reason::kill);
  p.self->wait_for(second);
  // Retired and started again many times: every message still in order.
  for (int i = 0; i < 5; ++i) {
    REQUIRE(p.put(text_msg("42", "m" + std::to_string(i),
                           std::to_string(10 + i))));
    REQUIRE(p.next());
    std::this_thread::sleep_for(std::chrono::milliseconds(i % 2 ? 200 : 0));
  }
  img = inbox::read_journal(p.journal(), 100);
  REQUIRE(img.live.size() >= 5);
  for (int i = 0; i < 5; ++i)
    CHECK(img.live[img.live.size() - 5 + i].msg.content
          == "m" + std::to_string(i));
}

TEST_CASE("the inbox outlives its write timeout and a stray timeout error") {
  // The start-up read of the journal is awaited with write_timeout; its
  // timeout once stayed armed under an ordinary message's id and ended the
  // inbox that long after the start (the gateway stopped: "the router died
  // (request_timeout)").
  inbox_probe p;
  auto cfg = p.config();
  cfg.write_timeout = std::chrono::seconds(1);
  p.start(cfg);
  p.self->monitor(p.inbox);
  REQUIRE(p.put(text_msg("42", "first", "1")));
  REQUIRE(p.next());
  caf::error died;
  p.self->receive([&](caf::down_msg& dm) { died = dm.reason; },
                  caf::after(std::chrono::seconds(2)) >> [] {});
  CHECK_MESSAGE(!died, p.sys.render(died));
  // An error sent to it as a message of its own is dropped too.
  p.self->send(caf::actor_cast<caf::actor>(p.inbox),
               caf::make_error(caf::sec::request_timeout));
  REQUIRE(p.put(text_msg("42", "second", "2")));
  auto m = p.next();
  REQUIRE(m);
  CHECK(m->content == "second");
}
