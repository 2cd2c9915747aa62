// The Slack adapter against a scripted Web API and Socket Mode server.
#include <doctest/doctest.h>

#include "actors/channels/slack/slack_channel.hpp"
#include "actors/channels/slack/slack_event.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_slack.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct sl : adapter_probe {
  temp_dir dir;
  fake_slack api;

  ~sl() { stop(); }

  void start(json extra = json::object()) {
    json raw{{"enabled", true}, {"botToken", fake_slack::bot_token},
             {"appToken", fake_slack::app_token}, {"apiBase", api.api_base()}};
    raw.update(extra);
    adapter = slack::make_channel(
      sys, channel_settings_for("slack", raw, dir.path), "slack", as_manager());
  }

  json meta(const inbound_msg& m) { return json::parse(m.metadata_json); }
};

} // namespace

TEST_CASE("slack events map to sessions threads and mentions") {
  std::string key, why;
  json payload{{"event", fake_slack::message("C1", "U1", "<@UBOT> deploy?")}};
  auto in = slack::parse_event(payload, "UBOT", "slack", true, key, why);
  REQUIRE(in);
  CHECK(in->content == "deploy?");
  auto ts = payload["event"]["ts"].get<std::string>();
  CHECK(in->session_key_override == "slack:C1:" + ts);
  CHECK(key == "C1:" + ts);
  auto meta = json::parse(in->metadata_json);
  CHECK(meta["_is_group"] == true);
  CHECK(meta["_mentioned"] == true);
  CHECK(slack::thread_of(in->session_key_override, in->chat_id) == ts);

  json dm{{"event", fake_slack::message("D9", "U1", "hi")}};
  in = slack::parse_event(dm, "UBOT", "slack", true, key, why);
  REQUIRE(in);
  CHECK(in->session_key_override.empty());
  CHECK(json::parse(in->metadata_json)["_is_group"] == false);

  auto edited = fake_slack::message("C1", "U1", "x");
  edited["subtype"] = "message_changed";
  CHECK_FALSE(slack::parse_event(json{{"event", edited}}, "UBOT", "slack",
                                 true, key, why));
  CHECK_FALSE(slack::parse_event(json{{"event", 3}}, "UBOT", "slack", true,
                                 key, why));
  CHECK(why == "malformed events_api payload");
  CHECK(slack::to_mrkdwn("**b** [x](http://y) a<b")
        == "*b* <http://y|x> a&lt;b");
}

TEST_CASE("slack round trip with envelope acks and replies in thread") {
  sl t;
  t.start();
  REQUIRE(t.api.wait_connections(1, 10s));
  CHECK(t.wait_state("connected"));
  auto ev = fake_slack::message("C1", "U1", "<@UBOT> status please");
  auto env = t.api.push_event(ev);
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->chat_id == "C1");
  CHECK(in->sender_id == "U1");
  CHECK(in->content == "status please");
  REQUIRE(t.api.wait_acked(1, 5s));
  CHECK(t.api.acked()[0] == env);

  auto out = reply("slack", "C1", "All **green**");
  out.session_key = in->session_key_override;
  CHECK(t.deliver(out) == "");
  auto posts = t.api.posts();
  REQUIRE(posts.size() == 1);
  CHECK(posts[0]["channel"] == "C1");
  CHECK(posts[0]["text"] == "All *green*");
  CHECK(posts[0]["thread_ts"] == ev["ts"]);
}

TEST_CASE("slack reconnects and never hands a re-sent envelope on twice") {
  sl t;
  t.start();
  REQUIRE(t.api.wait_connections(1, 10s));
  t.api.ignore_acks(true); // as if our acks were lost in the drop
  t.api.push_event(fake_slack::message("D1", "U1", "first"));
  auto a = t.next_inbound();
  REQUIRE(a);
  t.api.drop();
  REQUIRE(t.api.wait_connections(2, 15s));
  t.api.ignore_acks(false);
  t.api.push_event(fake_slack::message("D1", "U1", "second"));
  auto b = t.next_inbound();
  REQUIRE(b);
  CHECK(b->content == "second");
  CHECK_FALSE(t.next_inbound(1s)); // "first" came again but was not re-handed
  t.api.ask_refresh();
  REQUIRE(t.api.wait_connections(3, 15s));
  t.api.push_event(fake_slack::message("D1", "U1", "third"));
  auto c = t.next_inbound();
  REQUIRE(c);
  CHECK(c->content == "third");
}

TEST_CASE("slack honours web api 429 retry-after") {
  sl t;
  t.start();
  t.api.limit_posts(1, 1);
  CHECK(t.deliver(reply("slack", "D1", "eventually")) == "");
  CHECK(t.api.post_calls() == 2);
  t.api.limit_posts(5, 1);
  CHECK(t.deliver(reply("slack", "D1", "never")).find("429")
        != std::string::npos);
}

TEST_CASE("slack ignores malformed frames and reports bad tokens") {
  sl t;
  t.start();
  REQUIRE(t.api.wait_connections(1, 10s));
  t.api.push_raw("][");
  t.api.push_raw(R"({"type":"mystery"})");
  t.api.push_event(json{{"type", "message"}, {"text", "no channel"},
                        {"user", "U1"}});
  t.api.push_event(fake_slack::message("D2", "U1", "ok"));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "ok");
  CHECK(t.status().state == "connected");
  t.stop();
  t.start(json{{"appToken", "xoxb-wrong-kind"}});
  CHECK(t.wait_state("error"));
  CHECK(t.status().detail.find("not_allowed_token_type")
        != std::string::npos);
}
