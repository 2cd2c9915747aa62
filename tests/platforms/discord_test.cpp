// The Discord adapter against a scripted Gateway and REST API on 127.0.0.1.
#include <doctest/doctest.h>

#include "actors/channels/discord/discord_channel.hpp"
#include "actors/channels/discord/discord_event.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_discord.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct dc : adapter_probe {
  temp_dir dir;
  fake_discord api;

  ~dc() { stop(); }

  void start(json extra = json::object()) {
    json raw{{"enabled", true}, {"token", "disc-token"},
             {"apiBase", api.api_base()}};
    raw.update(extra);
    adapter = discord::make_channel(
      sys, channel_settings_for("discord", raw, dir.path), "discord",
      as_manager());
  }

  json meta(const inbound_msg& m) { return json::parse(m.metadata_json); }
};

} // namespace

TEST_CASE("discord messages carry guild mention and thread metadata") {
  discord::gateway_view view;
  view.bot_id = "800";
  discord::note_threads(view, "THREAD_CREATE",
                        json{{"id", "77"}, {"parent_id", "70"}, {"type", 11},
                             {"guild_id", "1"}});
  std::string why;
  auto in = discord::parse_message(
    fake_discord::message("77", "5", "hi there", "1", true), view, "discord",
    why);
  REQUIRE(in);
  CHECK(in->content == "hi there"); // the bot's mention tag is removed
  CHECK(in->chat_id == "77");
  CHECK(in->session_key_override == "discord:70:thread:77");
  auto meta = json::parse(in->metadata_json);
  CHECK(meta["_is_group"] == true);
  CHECK(meta["_mentioned"] == true);
  CHECK_FALSE(meta["_message_id"].get<std::string>().empty());

  auto plain = discord::parse_message(
    fake_discord::message("70", "5", "chatting", "1"), view, "discord", why);
  REQUIRE(plain);
  CHECK(json::parse(plain->metadata_json)["_mentioned"] == false);
  CHECK(plain->session_key_override.empty());

  CHECK_FALSE(discord::parse_message(
    fake_discord::message("70", "800", "my own words"), view, "discord", why));
  CHECK_FALSE(discord::parse_message(json{{"content", "x"}}, view, "discord",
                                     why));
  CHECK(why == "malformed MESSAGE_CREATE");
  view.allow_channels = {"70"};
  CHECK(discord::parse_message(
    fake_discord::message("77", "5", "thread of 70", "1"), view, "discord",
    why));
  CHECK_FALSE(discord::parse_message(
    fake_discord::message("99", "5", "elsewhere", "1"), view, "discord", why));
}

TEST_CASE("a discord author whose bot field is not a boolean is read, not thrown on") {
  // Found by fuzz_discord: author.value("bot", false) threw type_error 302.
  discord::gateway_view view;
  view.bot_id = "800";
  auto msg = fake_discord::message("70", "5", "hello");
  msg["author"]["bot"] = "yes";
  std::string why;
  std::optional<inbound_msg> in;
  REQUIRE_NOTHROW(in = discord::parse_message(msg, view, "discord", why));
  REQUIRE(in);
  CHECK(in->content == "hello");
  msg["author"]["bot"] = true;
  CHECK_FALSE(discord::parse_message(msg, view, "discord", why));
  CHECK(why == "from a bot");
}

TEST_CASE("discord identifies and round trips through rest") {
  dc t;
  t.start();
  REQUIRE(t.api.wait_sessions(1, 10s));
  CHECK(t.wait_state("connected"));
  CHECK(t.api.identifies() == 1);
  CHECK(t.api.last_intents() == 37377);
  t.api.push("MESSAGE_CREATE", fake_discord::message("42", "7", "hello"));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->channel == "discord");
  CHECK(in->chat_id == "42");
  CHECK(in->sender_id == "7");
  CHECK(in->content == "hello");
  CHECK(t.meta(*in)["_is_group"] == false);

  std::string long_text(4500, 'x');
  CHECK(t.deliver(reply("discord", "42", long_text)) == "");
  auto posts = t.api.posts();
  REQUIRE(posts.size() == 3); // 2000 + 2000 + 500
  CHECK(posts[0]["channel_id"] == "42");
  CHECK(posts[0]["content"].get<std::string>().size() == 2000);
  CHECK(posts[2]["content"].get<std::string>().size() == 500);
  CHECK(t.status().sent == 1);
}

TEST_CASE("discord heartbeats and resumes after a drop without loss or repeats") {
  dc t;
  t.start();
  REQUIRE(t.api.wait_sessions(1, 10s));
  t.api.push("MESSAGE_CREATE", fake_discord::message("1", "7", "one"));
  auto a = t.next_inbound();
  REQUIRE(a);
  CHECK(a->content == "one");
  CHECK(eventually([&] { return t.api.heartbeats() >= 1; }, 10s));

  t.api.replay_overlap(true); // the replay includes "one" again
  t.api.drop();
  t.api.push("MESSAGE_CREATE", fake_discord::message("1", "7", "two"));
  REQUIRE(t.api.wait_sessions(2, 15s));
  auto b = t.next_inbound(10s);
  REQUIRE(b);
  CHECK(b->content == "two");
  CHECK(t.api.resumes() == 1);
  CHECK(t.api.identifies() == 1);
  CHECK_FALSE(t.next_inbound(1s));
  CHECK(t.wait_state("connected"));
}

TEST_CASE("discord reconnects when heartbeats are not acknowledged") {
  dc t;
  t.start();
  REQUIRE(t.api.wait_sessions(1, 10s));
  t.api.ack_heartbeats(false);
  REQUIRE(t.api.wait_sessions(2, 15s)); // zombie detected -> RESUME
  CHECK(t.api.resumes() >= 1);
  t.api.ack_heartbeats(true);
  t.api.push("MESSAGE_CREATE", fake_discord::message("1", "7", "alive"));
  auto in = t.next_inbound(10s);
  REQUIRE(in);
  CHECK(in->content == "alive");
}

TEST_CASE("discord honours 429 retry_after on sends") {
  dc t;
  t.start();
  t.api.limit_posts(1, 0.5);
  CHECK(t.deliver(reply("discord", "42", "patience")) == "");
  CHECK(t.api.post_calls() == 2);
  REQUIRE(t.api.posts().size() == 1);
  t.api.limit_posts(10, 0.2);
  auto err = t.deliver(reply("discord", "42", "too much"));
  CHECK(err.find("429") != std::string::npos);
  CHECK(t.status().failed == 1);
}

TEST_CASE("discord ignores malformed gateway payloads") {
  dc t;
  t.start();
  REQUIRE(t.api.wait_sessions(1, 10s));
  t.api.push_raw("{not json");
  t.api.push_raw(R"({"op":"zero"})");
  t.api.push("MESSAGE_CREATE", json{{"content", "no author"}});
  t.api.push("MESSAGE_CREATE", json::array());
  t.api.push("MESSAGE_CREATE", fake_discord::message("3", "7", "fine"));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "fine");
  CHECK(t.status().state == "connected");
  CHECK(t.api.identifies() == 1);
}

TEST_CASE("discord with a wrong token reports an error and stops") {
  dc t;
  t.start(json{{"token", "wrong"}});
  CHECK(t.wait_state("error"));
  CHECK(t.status().detail.find("401") != std::string::npos);
  CHECK(t.api.identifies() == 0);
  t.stop();
  // Straight to the Gateway: it closes with 4004, which is final.
  t.start(json{{"token", "wrong"}, {"gatewayUrl", t.api.gateway_url()}});
  CHECK(t.wait_state("error"));
  CHECK(t.status().detail.find("4004") != std::string::npos);
}
