// The Mochat adapter's HTTP polling fallback against the scripted Mochat:
// polling while the socket is refused, the switch back to the socket, and
// attachments going out as the original sends them.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "actors/channels/mochat/mochat_config.hpp"
#include "actors/channels/mochat/mochat_event.hpp"
#include "actors/channels/mochat/mochat_poll.hpp"
#include "tests/platforms/mochat_probe.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// Quick timings, so polling shows within a test's patience.
const json polling_keys{{"replyDelayMode", "off"},
                        {"refreshIntervalMs", 1000},
                        {"watchTimeoutMs", 2000},
                        {"retryDelayMs", 100},
                        {"socketMaxReconnectDelayMs", 300}};

json stored_cursors(const mochat_probe& t) {
  std::ifstream f{t.cursor_file()};
  return json::parse(f, nullptr, false);
}

json meta_json(const inbound_msg& m) {
  return json::parse(m.metadata_json);
}

/// This process's threads whose names start with "mochat." (the adapter
/// names its own; asio's resolver threads take the name of the thread
/// that made them).
int mochat_threads() {
  int n = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream f{task.path() / "comm"};
    std::string name;
    std::getline(f, name);
    n += name.rfind("mochat.", 0) == 0 ? 1 : 0;
  }
  return n;
}

} // namespace

TEST_CASE("mochat polling requests carry the original's keys") {
  std::string error;
  auto cfg = mochat::parse_mochat_config("mochat",
                                         json{{"clawToken", "t"},
                                              {"watchTimeoutMs", 9000},
                                              {"retryDelayMs", 250},
                                              {"watchLimit", 500}}
                                           .dump(),
                                         error);
  REQUIRE(error == "");
  CHECK(cfg.watch_timeout_ms == 9000);
  CHECK(cfg.retry_delay_ms == 250);
  auto [wp, wb] = mochat::poll_request(cfg, "session_a",
                                       mochat::target_kind::session, 7, false);
  CHECK(wp == "/api/claw/sessions/watch");
  CHECK(wb
        == json{{"sessionId", "session_a"},
                {"cursor", 7},
                {"timeoutMs", 9000},
                {"limit", 500}});
  // A session seen for the first time only asks where its log stands.
  CHECK(mochat::poll_request(cfg, "session_a", mochat::target_kind::session, 0,
                             true)
          .second["timeoutMs"]
        == 0);
  auto [pp, pb] =
    mochat::poll_request(cfg, "panel-1", mochat::target_kind::panel, 0, false);
  CHECK(pp == "/api/claw/groups/panels/messages");
  CHECK(pb == json{{"panelId", "panel-1"}, {"limit", 100}}); // at most 100

  mochat::parse_mochat_config(
    "mochat", json{{"clawToken", "t"}, {"watchTimeoutMs", -1}}.dump(), error);
  CHECK(error.find("channels.mochat.watchTimeoutMs") != std::string::npos);
}

TEST_CASE("mochat panel messages read as message.add events, oldest first") {
  auto events = mochat::read_panel_messages(
    json{{"groupId", "g1"},
         {"messages",
          {{{"messageId", "m2"},
            {"author", "u2"},
            {"content", "second"},
            {"createdAt", "2026-12-04T10:00:01.000Z"},
            {"authorInfo", {{"nickname", "Bea"}}}},
           "not an object",
           {{"messageId", "m1"}, {"author", "u1"}, {"content", "first"}}}}},
    "panel-1");
  REQUIRE(events.size() == 2);
  CHECK(events[0]["payload"]["messageId"] == "m1");
  CHECK(events[1]["type"] == "message.add");
  CHECK(events[1]["timestamp"] == "2026-12-04T10:00:01.000Z");
  CHECK(events[1]["payload"]["groupId"] == "g1");
  CHECK(events[1]["payload"]["converseId"] == "panel-1");
  CHECK(events[1]["payload"]["authorInfo"]["nickname"] == "Bea");
  CHECK(mochat::read_panel_messages(json{{"messages", "x"}}, "p").empty());
}

TEST_CASE("mochat polls over HTTP while the socket is refused") {
  mochat_probe t;
  t.api.refuse_socket(true);
  // History from before the start: not answered.
  t.api.push_session("session_a", "u1", "old words", "h1");
  t.api.push_panel("panel-1", "g1", "u2", "old panel words", "hp1", true,
                   "2026-01-01T00:00:00.000Z");
  t.start(polling_keys);
  // The first watch of a session without a cursor only asks where it
  // stands; the second waits for news from there.
  REQUIRE(t.api.wait_polls(2, 1, 10s));
  auto w = t.api.watches();
  CHECK(w[0]
        == json{{"sessionId", "session_a"},
                {"cursor", 0},
                {"timeoutMs", 0},
                {"limit", 100}});
  CHECK(w[1]["cursor"] == 1);
  CHECK(w[1]["timeoutMs"] == 2000);
  CHECK(t.api.panel_reads()[0] == json{{"panelId", "panel-1"}, {"limit", 100}});
  REQUIRE(t.wait_state("connected"));
  CHECK(t.status().detail.find("HTTP polling") != std::string::npos);

  t.api.push_session("session_a", "u1", "hello by polling", "p1");
  auto a = t.next_inbound();
  REQUIRE(a);
  CHECK(a->content == "hello by polling");
  CHECK(a->chat_id == "session_a");
  CHECK(meta_json(*a)["_message_id"] == "p1");
  CHECK(eventually(
    [&] {
      return stored_cursors(t).value("cursors", json::object())["session_a"]
             == 2;
    },
    5s));

  t.api.push_panel("panel-1", "g1", "u2", "panel by polling", "pp1", true);
  auto b = t.next_inbound();
  REQUIRE(b);
  CHECK(b->content == "panel by polling");
  CHECK(b->chat_id == "panel-1");
  CHECK(meta_json(*b)["group_id"] == "g1");
  // Read again (it still holds both messages): nothing comes twice, and
  // the history stays unanswered.
  auto reads = t.api.panel_reads().size();
  REQUIRE(t.api.wait_polls(0, reads + 1, 10s));
  CHECK_FALSE(t.next_inbound(300ms));
  CHECK(t.api.connections() == 0);

  // Replies go out by REST as ever.
  CHECK(t.deliver(reply("mochat", "panel-1", "seen")) == "");
  REQUIRE(t.api.sends().size() == 1);
  CHECK(t.api.sends()[0]["path"] == "/api/claw/groups/panels/send");
  CHECK(t.api.sends()[0]["groupId"] == "g1");
}

TEST_CASE("mochat polls many targets at once from a few threads") {
  mochat_probe t;
  t.api.refuse_socket(true);
  json sessions = json::array(), panels = json::array();
  for (int i = 1; i <= 6; ++i)
    sessions.push_back("session_" + std::to_string(i));
  for (int i = 1; i <= 3; ++i)
    panels.push_back("panel-" + std::to_string(i));
  auto keys = polling_keys;
  keys["sessions"] = sessions;
  keys["panels"] = panels;
  keys["watchTimeoutMs"] = 5000; // held long enough to be seen together
  // A new session's first watch only asks where it stands, and what it
  // finds there is history. Answered late here (as on a loaded box), those
  // first watches overlap: they must not pass for the long polls below.
  t.api.slow_instant_watches(300ms);
  t.start(keys);
  // Every session's long poll waits at the server at the same time, and
  // every panel is read.
  REQUIRE(t.api.wait_held_watches(6, 15s));
  REQUIRE(eventually(
    [&] {
      std::set<std::string> read;
      for (const auto& r : t.api.panel_reads())
        read.insert(r.value("panelId", ""));
      return read.size() == 3;
    },
    10s));
  // Nine targets; the adapter's threads are its loop, a socket attempt and
  // asio's resolvers, whatever the number of targets (one per target
  // before).
  auto threads = mochat_threads();
  MESSAGE("mochat threads while polling 9 targets: " << threads);
  CHECK(threads >= 1);
  CHECK(threads <= 4);

  for (int i = 1; i <= 6; ++i)
    t.api.push_session("session_" + std::to_string(i), "u" + std::to_string(i),
                       "hello " + std::to_string(i), "m" + std::to_string(i));
  for (int i = 1; i <= 3; ++i)
    t.api.push_panel("panel-" + std::to_string(i), "g" + std::to_string(i),
                     "u9", "panel " + std::to_string(i),
                     "pm" + std::to_string(i), true);
  std::multiset<std::string> chats;
  for (int i = 0; i < 9; ++i) {
    auto m = t.next_inbound();
    REQUIRE(m);
    chats.insert(m->chat_id);
  }
  CHECK_FALSE(t.next_inbound(500ms)); // nothing twice
  std::multiset<std::string> expected;
  for (const auto& s : sessions)
    expected.insert(s.get<std::string>());
  for (const auto& p : panels)
    expected.insert(p.get<std::string>());
  CHECK(chats == expected);
  CHECK(eventually(
    [&] {
      auto c = stored_cursors(t).value("cursors", json::object());
      for (const auto& s : sessions)
        if (c.value(s.get<std::string>(), 0) != 1)
          return false;
      return true;
    },
    5s));
}

TEST_CASE("mochat goes from socket to polling and back, nothing lost or "
          "repeated") {
  mochat_probe t;
  t.start_subscribed(polling_keys);
  t.api.push_session("session_a", "u1", "one", "s1");
  auto a = t.next_inbound();
  REQUIRE(a);
  CHECK(a->content == "one");
  REQUIRE(t.api.wait_acked(1, 5s));

  t.api.refuse_socket(true); // the connection drops, none is taken
  REQUIRE(t.api.wait_polls(1, 1, 10s));
  // Polling goes on from the socket's cursor, waiting for news at once.
  CHECK(t.api.watches()[0]["cursor"] == 1);
  CHECK(t.api.watches()[0]["timeoutMs"] == 2000);
  t.api.push_session("session_a", "u1", "two", "s2");
  auto b = t.next_inbound();
  REQUIRE(b);
  CHECK(b->content == "two");
  t.api.push_panel("panel-1", "g1", "u2", "panel while polling", "pm1", true);
  auto c = t.next_inbound();
  REQUIRE(c);
  CHECK(c->content == "panel while polling");

  t.api.refuse_socket(false);
  REQUIRE(t.api.wait_connections(2, 15s));
  REQUIRE(eventually([&] { return t.api.subscriptions().size() == 2; }, 10s));
  // The polls ended before the subscription, which asks from the cursor
  // polling moved.
  auto watches = t.api.watches().size();
  CHECK(t.api.subscriptions()[1]["cursors"]["session_a"] == 2);
  t.api.push_session("session_a", "u1", "three", "s3");
  auto d = t.next_inbound();
  REQUIRE(d);
  CHECK(d->content == "three");
  // The panel message the socket sends again (it was never acknowledged
  // there) is known: acknowledged, not handed on twice.
  CHECK(t.api.wait_acked(3, 5s));
  CHECK_FALSE(t.next_inbound(500ms));
  CHECK(t.api.watches().size() == watches);
  CHECK(t.wait_state("connected"));
  CHECK(t.status().detail.find("HTTP polling") == std::string::npos);
}

TEST_CASE("mochat polls on while a socket attempt hangs") {
  mochat_probe t;
  t.api.refuse_socket(true);
  auto keys = polling_keys;
  keys["socketConnectTimeoutMs"] = 120000; // far beyond the test's patience
  t.start(keys);
  REQUIRE(t.api.wait_polls(2, 1, 10s));
  REQUIRE(t.wait_state("connected")); // by polling
  // The socket server now takes connections and never speaks: the next
  // attempt waits for the Engine.IO open packet up to the connect timeout.
  t.api.silent_socket(true);
  t.api.refuse_socket(false);
  REQUIRE(t.api.wait_silent_sockets(1, 10s));
  t.api.push_session("session_a", "u1", "while the socket hangs", "h1");
  auto a = t.next_inbound();
  REQUIRE(a);
  CHECK(a->content == "while the socket hangs");
  // It came by polling while the attempt still waited on its socket.
  CHECK(t.api.silent_sockets() == 1);
  CHECK(t.api.connections() == 0);
  CHECK(t.status().detail.find("HTTP polling") != std::string::npos);
}

TEST_CASE("mochat polling waits out a 429 and loses nothing") {
  mochat_probe t;
  t.api.refuse_socket(true);
  t.start(polling_keys);
  REQUIRE(t.api.wait_polls(2, 1, 10s));
  // The watch after the next answer is refused for the rate: asked again
  // from the same cursor once Retry-After has passed.
  t.api.limit_watches(1);
  t.api.push_session("session_a", "u1", "one", "r1");
  auto a = t.next_inbound();
  REQUIRE(a);
  CHECK(a->content == "one");
  REQUIRE(eventually([&] { return t.api.limited_watches() == 1; }, 10s));
  t.api.push_session("session_a", "u1", "two", "r2");
  auto b = t.next_inbound();
  REQUIRE(b);
  CHECK(b->content == "two");
  CHECK_FALSE(t.next_inbound(500ms)); // nothing twice
  // The 429 was waited out, not taken for a failing poll.
  CHECK(t.status().state == "connected");
  CHECK(t.status().detail.find("HTTP polling (Socket.IO") != std::string::npos);
  auto w = t.api.watches();
  size_t limited_at = 0;
  for (size_t i = 0; i < w.size(); ++i)
    if (w[i]["cursor"] == 1) {
      limited_at = i; // the first watch from cursor 1 got the 429
      break;
    }
  REQUIRE(limited_at + 1 < w.size());
  CHECK(w[limited_at + 1]["cursor"] == 1); // asked again from there
}

TEST_CASE("mochat polling with a refused token stops with the key named") {
  mochat_probe t;
  t.api.refuse_socket(true);
  auto keys = polling_keys;
  keys["clawToken"] = "wrong-secret";
  t.start(keys);
  REQUIRE(t.wait_state("error"));
  auto detail = t.status().detail;
  CHECK(detail.find("channels.mochat.clawToken") != std::string::npos);
  CHECK(detail.find("wrong-secret") == std::string::npos);
}

TEST_CASE("mochat sends a reply's attachments as lines under its words") {
  mochat_probe t;
  t.start_subscribed();
  auto m = reply("mochat", "session_a", "  the report  ");
  m.metadata_json =
    json{{"media", {"/home/u/out/report.pdf", "https://example.com/chart.png"}}}
      .dump();
  CHECK(t.deliver(m) == "");
  auto only = reply("mochat", "session_a", "");
  only.metadata_json = json{{"media", {"/home/u/out/a.png"}}}.dump();
  CHECK(t.deliver(only) == "");
  auto sent = t.api.sends();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0]["content"]
        == "the report\n/home/u/out/report.pdf\nhttps://example.com/chart.png");
  CHECK(sent[1]["content"] == "/home/u/out/a.png");
}
