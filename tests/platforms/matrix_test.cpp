// The Matrix adapter against a scripted homeserver on 127.0.0.1.
#include <doctest/doctest.h>

#include "actors/channels/matrix/matrix_channel.hpp"
#include "actors/channels/matrix/matrix_sync.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_matrix.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct mx : adapter_probe {
  temp_dir dir;
  fake_matrix hs;

  ~mx() { stop(); }

  void start(json extra = json::object()) {
    json raw{{"enabled", true}, {"homeserver", hs.base_url()},
             {"accessToken", fake_matrix::token}, {"syncTimeoutMs", 1000}};
    raw.update(extra);
    adapter = matrix::make_channel(
      sys, channel_settings_for("matrix", raw, dir.path), "matrix",
      as_manager());
  }
};

} // namespace

TEST_CASE("matrix sync answers become messages with room metadata") {
  json body{{"next_batch", "s9"},
            {"rooms",
             {{"join",
               {{"!team:local",
                 {{"summary", {{"m.joined_member_count", 5}}},
                  {"timeline",
                   {{"events",
                     json::array(
                       {{{"type", "m.room.message"}, {"event_id", "$1"},
                         {"sender", "@ann:local"},
                         {"content", {{"msgtype", "m.text"},
                                      {"body", "@nano:local ping"}}}},
                        {{"type", "m.room.member"}, {"sender", "@bob:local"},
                         {"content", {{"membership", "join"}}}},
                        {{"type", "m.room.message"}, {"sender", "@nano:local"},
                         {"content", {{"msgtype", "m.text"},
                                      {"body", "my own echo"}}}},
                        {{"no_type", true}}})}}}}}}},
              {"invite", {{"!new:local", json::object()}}}}}};
  auto b = matrix::read_sync(body, "@nano:local", "matrix");
  REQUIRE(b);
  CHECK(b->next_batch == "s9");
  REQUIRE(b->messages.size() == 1);
  CHECK(b->messages[0].chat_id == "!team:local");
  CHECK(b->messages[0].sender_id == "@ann:local");
  auto meta = json::parse(b->messages[0].metadata_json);
  CHECK(meta["_is_group"] == true);
  CHECK(meta["_mentioned"] == true);
  CHECK(meta["_message_id"] == "$1");
  CHECK(b->malformed == 1);
  CHECK(b->invites == std::vector<std::string>{"!new:local"});
  CHECK_FALSE(matrix::read_sync(json{{"rooms", 1}}, "@nano:local", "matrix"));
}

TEST_CASE("matrix round trip skips history and sends html") {
  mx t;
  t.hs.push_text("!dm:local", "@ann:local", "old news from before");
  t.start();
  CHECK(t.wait_state("connected"));
  t.hs.push_text("!dm:local", "@ann:local", "hello");
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "hello");
  CHECK(in->chat_id == "!dm:local");
  CHECK(json::parse(in->metadata_json)["_is_group"] == false);
  CHECK_FALSE(t.next_inbound(800ms)); // the history stayed history

  CHECK(t.deliver(reply("matrix", "!dm:local", "Hi **Ann**")) == "");
  auto sent = t.hs.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["room_id"] == "!dm:local");
  CHECK(sent[0]["msgtype"] == "m.text");
  CHECK(sent[0]["body"] == "Hi **Ann**");
  CHECK(sent[0]["format"] == "org.matrix.custom.html");
  CHECK(sent[0]["formatted_body"] == "Hi <b>Ann</b>");
}

TEST_CASE("matrix retries reuse the transaction id and never duplicate") {
  mx t;
  t.start();
  t.hs.lose_next_answer();
  auto m = reply("matrix", "!r:local", "exactly once");
  CHECK(t.deliver(m) != "");   // the answer was lost: an error...
  CHECK(t.deliver(m) == "");   // ...so the manager tries again
  CHECK(t.hs.sent().size() == 1);
  CHECK(t.deliver(m) == "");   // a new message with the same words
  CHECK(t.hs.sent().size() == 2);

  t.hs.limit_sends(1, 300);
  CHECK(t.deliver(reply("matrix", "!r:local", "after 429")) == "");
  CHECK(t.hs.sent().size() == 3);
}

TEST_CASE("matrix keeps its sync token across outages and restarts") {
  mx t;
  t.start();
  CHECK(t.wait_state("connected"));
  t.hs.push_text("!r:local", "@ann:local", "one");
  auto a = t.next_inbound();
  REQUIRE(a);
  t.hs.go_down();
  CHECK(t.wait_state("disconnected"));
  t.hs.push_text("!r:local", "@ann:local", "two");
  t.hs.come_up();
  auto b = t.next_inbound(15s);
  REQUIRE(b);
  CHECK(b->content == "two");
  t.stop();
  t.hs.push_text("!r:local", "@ann:local", "while stopped");
  t.start();
  auto c = t.next_inbound(10s);
  REQUIRE(c);
  CHECK(c->content == "while stopped");
  CHECK_FALSE(t.next_inbound(1s));
}

TEST_CASE("matrix logs in with a password joins invites and shrugs off garbage") {
  mx t;
  t.start(json{{"accessToken", nullptr}, {"password", fake_matrix::password},
               {"userId", fake_matrix::bot}});
  CHECK(t.wait_state("connected"));
  CHECK(t.hs.logins() >= 1);
  t.hs.invite("!invited:local");
  t.hs.garbage_sync_once();
  t.hs.push_event("!r:local", json{{"type", "m.room.message"},
                                   {"content", "not an object"}});
  t.hs.push_text("!r:local", "@ann:local", "@nano:local hi", 3, true);
  auto in = t.next_inbound(15s);
  REQUIRE(in);
  CHECK(json::parse(in->metadata_json)["_mentioned"] == true);
  auto end = std::chrono::steady_clock::now() + 5s;
  while (t.hs.joined().empty() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(20ms);
  CHECK(t.hs.joined() == std::vector<std::string>{"!invited:local"});
  CHECK(t.deliver(reply("matrix", "!r:local", "signed in")) == "");

  t.stop();
  t.start(json{{"accessToken", "bogus"}});
  CHECK(t.wait_state("error"));
  CHECK(t.status().detail.find("M_UNKNOWN_TOKEN") != std::string::npos);
}
