// The inbox journal's frames and records, and the journal file on disk:
// torn and damaged tails, compaction, the lock between two gateways.
#include <doctest/doctest.h>

#include "actors/inbox/journal_file.hpp"
#include "actors/inbox/journal_frames.hpp"
#include "actors/inbox/journal_records.hpp"
#include "tests/inbox/samples.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using nb::test::text_msg;
using namespace nb::inbox;

namespace {

journal_entry entry(int64_t seq, inbound_msg m) {
  journal_entry e;
  e.id = "ab12cd34." + std::to_string(seq);
  e.dedup_key = dedup_key(m);
  e.msg = std::move(m);
  return e;
}

} // namespace

TEST_CASE("crc32 matches the zlib value") {
  CHECK(crc32("123456789") == 0xCBF43926u);
  CHECK(crc32("") == 0u);
}

TEST_CASE("frames read back and a torn last frame is cut off") {
  auto bytes = frame("one") + frame("two") + frame("three");
  auto scan = scan_frames(bytes);
  REQUIRE(scan.payloads.size() == 3);
  CHECK(scan.payloads[2] == "three");
  CHECK(scan.tail == tail_kind::clean);
  CHECK(scan.good_bytes == bytes.size());
  for (size_t cut = 1; cut < frame("three").size(); ++cut) {
    auto torn = bytes.substr(0, bytes.size() - cut);
    auto s = scan_frames(torn);
    CHECK(s.payloads.size() == 2);
    CHECK(s.tail == tail_kind::torn);
    CHECK(s.good_bytes == frame("one").size() + frame("two").size());
  }
}

TEST_CASE("a damaged frame in the middle stops the scan as corrupt") {
  auto bytes = frame("one") + frame("two") + frame("three");
  bytes[frame("one").size() + 9] ^= 0x5A; // a payload byte of "two"
  auto s = scan_frames(bytes);
  CHECK(s.payloads.size() == 1);
  CHECK(s.tail == tail_kind::corrupt);
  // The same damage in the last frame is a torn write, not corruption.
  auto last = frame("one") + frame("two");
  last[last.size() - 1] ^= 0x5A;
  CHECK(scan_frames(last).tail == tail_kind::torn);
}

TEST_CASE("the journal keeps unsettled messages in order with their ids") {
  std::string bytes = head_record("ab12cd34", 1);
  bytes += put_record(entry(1, text_msg("42", "first", "100")));
  bytes += put_record(entry(2, text_msg("42", "second", "101")));
  bytes += put_record(entry(3, text_msg("7", "third")));
  bytes += settle_record("ab12cd34.2");
  auto img = read_journal(bytes, 100);
  CHECK(img.epoch == "ab12cd34");
  CHECK(img.next_seq == 4);
  REQUIRE(img.live.size() == 2);
  CHECK(img.live[0].msg.content == "first");
  CHECK(img.live[0].msg.inbox_id == "ab12cd34.1");
  CHECK(img.live[0].dedup_key == "telegram\n42\n100");
  CHECK(img.live[1].msg.content == "third");
  CHECK(img.live[1].dedup_key.empty());
  REQUIRE(img.seen.size() == 1);
  CHECK(img.seen.contains("telegram\n42\n101"));
  CHECK_FALSE(img.seen.contains("telegram\n42\n100"));
  // Compacted: the same image, smaller.
  auto again = read_journal(compacted(img), 100);
  CHECK(again.epoch == img.epoch);
  CHECK(again.next_seq == img.next_seq);
  REQUIRE(again.live.size() == 2);
  CHECK(again.live[1].msg.content == "third");
  CHECK(again.seen.digests() == img.seen.digests());
  CHECK(compacted(img).size() < bytes.size());
}

TEST_CASE("the seen list keeps only the newest keys") {
  std::string bytes = head_record("e", 1);
  for (int i = 1; i <= 10; ++i) {
    bytes += put_record(entry(i, text_msg("1", "m", std::to_string(i))));
    bytes += settle_record("ab12cd34." + std::to_string(i));
  }
  auto img = read_journal(bytes, 3);
  REQUIRE(img.seen.size() == 3);
  CHECK(img.seen.digests().front() == seen_keys::digest("telegram\n1\n8"));
  CHECK(img.seen.contains("telegram\n1\n10"));
  CHECK_FALSE(img.seen.contains("telegram\n1\n7"));
  CHECK(img.live.empty());
}

TEST_CASE(
  "a journal written with the keys themselves reads and compacts to digests") {
  // Before digests the seen record held the keys ("dk").
  std::string bytes = head_record("e", 1);
  bytes += frame(R"({"t":"seen","dk":["telegram\n1\n5","slack\nC1\n9"]})");
  auto img = read_journal(bytes, 100);
  REQUIRE(img.seen.size() == 2);
  CHECK(img.seen.contains("telegram\n1\n5"));
  CHECK(img.seen.contains("slack\nC1\n9"));
  auto out = compacted(img);
  CHECK(out.find("\"dh\"") != std::string::npos);
  CHECK(out.find("telegram") == std::string::npos); // digests only
  auto again = read_journal(out, 100);
  CHECK(again.seen.digests() == img.seen.digests());
  // A digest that is not 16 hex digits is skipped, not misread.
  auto odd =
    read_journal(head_record("e", 1)
                   + frame(R"({"t":"seen","dh":["12",7,"zz00000000000000"]})"),
                 100);
  CHECK(odd.seen.empty());
}

TEST_CASE("a record with fields of the wrong type reads as far as it can") {
  // Past the CRC a record may still say anything (a bad disk, another
  // writer): reading it must not throw, or the gateway could not start.
  std::string bytes = frame(R"({"t":"head","epoch":5,"next":"x"})");
  bytes += frame(R"({"t":"put","id":"e.99999999999999999999","n":1e300,)"
                 R"("m":{"channel":5,"content":"kept","stream":"yes"}})");
  bytes += frame(R"({"t":"settle","id":7})");
  journal_image img;
  REQUIRE_NOTHROW(img = read_journal(bytes, 8));
  CHECK(img.epoch.empty());
  REQUIRE(img.live.size() == 1);
  CHECK(img.live[0].msg.content == "kept");
  CHECK(img.live[0].msg.channel.empty());
  CHECK_FALSE(img.live[0].msg.wants_stream);
  CHECK(img.live[0].attempts == 0);
  CHECK(seq_of(img.live[0].id) == 0);
}

TEST_CASE("the dedup key needs a platform message id") {
  auto m = text_msg("42", "x");
  CHECK(dedup_key(m).empty());
  m.metadata_json = R"({"_message_id": 17})";
  CHECK(dedup_key(m) == "telegram\n42\n17");
  m.metadata_json = "not json \"_message_id\"";
  CHECK(dedup_key(m).empty());
}

TEST_CASE("the journal file cuts a torn tail and keeps a damaged one aside") {
  test::scratch_dir dir;
  auto good = head_record("e", 1) + put_record(entry(1, text_msg("1", "a")));
  {
    journal_file f;
    REQUIRE(f.open(dir.path));
    REQUIRE(!f.append(good, true));
    // A crash in the middle of the next write.
    auto next = put_record(entry(2, text_msg("1", "b")));
    REQUIRE(!f.append(next.substr(0, next.size() / 2), true));
  }
  {
    journal_file f;
    auto bytes = f.open(dir.path);
    REQUIRE(bytes);
    CHECK(*bytes == good);
    CHECK(f.size() == static_cast<int64_t>(good.size()));
    CHECK(std::filesystem::file_size(dir.at("journal")) == good.size());
    // Damage in the middle: the file is copied aside before it is cut.
    auto more = put_record(entry(2, text_msg("1", "b")))
                + put_record(entry(3, text_msg("1", "c")));
    more[10] ^= 0x33;
    REQUIRE(!f.append(more, true));
  }
  journal_file f;
  auto bytes = f.open(dir.path);
  REQUIRE(bytes);
  CHECK(*bytes == good);
  int copies = 0;
  for (auto& e : std::filesystem::directory_iterator(dir.path))
    if (e.path().filename().string().rfind("journal.damaged-", 0) == 0)
      ++copies;
  CHECK(copies == 1);
}

TEST_CASE("compaction replaces the journal and appends go on after it") {
  test::scratch_dir dir;
  journal_file f;
  REQUIRE(f.open(dir.path));
  REQUIRE(!f.append(head_record("e", 1) + put_record(entry(1, text_msg("1", "a")))
                      + settle_record("ab12cd34.1"),
                    true));
  REQUIRE(!f.replace(head_record("e", 2)));
  REQUIRE(!f.append(put_record(entry(2, text_msg("1", "b"))), true));
  journal_file g; // the lock is held: a second gateway gets journal.1
  auto other = g.open(dir.path);
  REQUIRE(other);
  CHECK(other->empty());
  CHECK(g.path() == dir.at("journal.1"));
  auto img = read_journal(test::read_all(dir.at("journal")), 10);
  REQUIRE(img.live.size() == 1);
  CHECK(img.live[0].msg.content == "b");
  CHECK(img.next_seq == 3);
}
