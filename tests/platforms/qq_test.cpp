// The official QQ bot adapter against a scripted QQ platform on 127.0.0.1.
#include <doctest/doctest.h>

#include <filesystem>
#include <thread>

#include "actors/channels/qq/qq_channel.hpp"
#include "actors/channels/qq/qq_config.hpp"
#include "actors/channels/qq/qq_event.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_qq.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct qqt : adapter_probe {
  temp_dir dir;
  fake_qq api;

  ~qqt() { stop(); }

  void start(json extra = json::object()) {
    json raw{{"enabled", true}, {"appId", fake_qq::app_id},
             {"secret", fake_qq::secret}, {"apiBase", api.base_url()},
             {"tokenBase", api.base_url()}};
    raw.update(extra);
    adapter = qq::make_channel(sys, channel_settings_for("qq", raw, dir.path),
                               "qq", as_manager());
  }

  json meta(const inbound_msg& m) { return json::parse(m.metadata_json); }
};

} // namespace

TEST_CASE("qq config names missing and bad keys") {
  std::string error;
  auto c = qq::parse_qq_config("qq", "{}", "/tmp/m", error);
  CHECK(error.find("channels.qq.appId: missing") != std::string::npos);
  CHECK(error.find("channels.qq.secret: missing") != std::string::npos);
  c = qq::parse_qq_config(
    "qq", json{{"appId", "1"}, {"secret", "s"}, {"msgFormat", "html"}}.dump(),
    "/tmp/m", error);
  CHECK(error.find("channels.qq.msgFormat") == 0);
  c = qq::parse_qq_config(
    "qq", json{{"app_id", "1"}, {"client_secret", "s"},
               {"msgFormat", "markdown"}, {"ackMessage", ""}}.dump(),
    "/tmp/m", error);
  CHECK(error.empty());
  CHECK(c.secret == "s");
  CHECK(c.markdown);
  CHECK(c.ack_message.empty());
  CHECK(c.intents == (1 << 25));
  CHECK(c.media_dir == "/tmp/m/qq");
}

TEST_CASE("qq messages give openids and the group flag") {
  std::string why;
  auto g = qq::read_message("GROUP_AT_MESSAGE_CREATE",
                            fake_qq::group_message("G1", "M1", "hi bot"), "qq",
                            why);
  REQUIRE(g);
  CHECK(g->group);
  CHECK(g->msg.chat_id == "G1");
  CHECK(g->msg.sender_id == "M1");
  CHECK(g->msg.content == "hi bot");
  auto meta = json::parse(g->msg.metadata_json);
  CHECK(meta["_is_group"] == true);
  CHECK(meta["_mentioned"] == true);
  auto d = fake_qq::c2c_message("U1", "");
  d["attachments"] = json::array(
    {{{"content_type", "image/png"}, {"filename", "a.png"},
      {"url", "//cdn.example/a.png"}, {"size", 10}}});
  auto c = qq::read_message("C2C_MESSAGE_CREATE", d, "qq", why);
  REQUIRE(c);
  CHECK(c->msg.chat_id == "U1");
  REQUIRE(c->attachments.size() == 1);
  CHECK(c->attachments[0].url == "https://cdn.example/a.png");
  CHECK_FALSE(qq::read_message("C2C_MESSAGE_CREATE", json{{"content", "x"}},
                               "qq", why));
  CHECK(why == "malformed C2C_MESSAGE_CREATE");
  CHECK_FALSE(qq::read_message("C2C_MESSAGE_CREATE", json::array(), "qq", why));
}

TEST_CASE("qq identifies with the app token and replies with msg_id and msg_seq") {
  qqt t;
  t.start();
  REQUIRE(t.api.wait_sessions(1, 10s));
  CHECK(t.wait_state("connected"));
  CHECK(t.status().detail == "as nano-bot");
  CHECK(t.api.identifies() == 1);
  CHECK(t.api.last_intents() == (1 << 25));
  CHECK(t.api.last_identify_token() == "QQBot tok-1");

  auto d = fake_qq::c2c_message("U1", "hello qq");
  t.api.push("C2C_MESSAGE_CREATE", d);
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->channel == "qq");
  CHECK(in->chat_id == "U1");
  CHECK(in->content == "hello qq");
  CHECK(t.meta(*in)["_message_id"] == d["id"]);
  // The ack went out as the first reply to the message.
  auto end = std::chrono::steady_clock::now() + 5s;
  while (t.api.posts().empty() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(20ms);
  REQUIRE(t.api.posts().size() == 1);
  CHECK(t.api.posts()[0]["content"] == "⏳ Processing...");
  CHECK(t.api.posts()[0]["msg_seq"] == 1);

  CHECK(t.deliver(reply("qq", "U1", "part one")) == "");
  CHECK(t.deliver(reply("qq", "U1", "part two")) == "");
  auto posts = t.api.posts();
  REQUIRE(posts.size() == 3);
  CHECK(posts[1]["kind"] == "users");
  CHECK(posts[1]["target"] == "U1");
  CHECK(posts[1]["msg_id"] == d["id"]);
  CHECK(posts[1]["msg_seq"] == 2);
  CHECK(posts[2]["msg_seq"] == 3);
  CHECK(posts[2]["msg_type"] == 0);

  t.api.push("GROUP_AT_MESSAGE_CREATE",
             fake_qq::group_message("G7", "M1", "in the group"));
  in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->chat_id == "G7");
  CHECK(t.deliver(reply("qq", "G7", "group answer")) == "");
  posts = t.api.posts();
  CHECK(posts.back()["kind"] == "groups");
  CHECK(posts.back()["target"] == "G7");
  CHECK(t.api.token_fetches() == 2); // the loop's and the sender's, cached
}

TEST_CASE("qq markdown format and no ack") {
  qqt t;
  t.start({{"msgFormat", "markdown"}, {"ackMessage", ""}});
  REQUIRE(t.api.wait_sessions(1, 10s));
  t.api.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U2", "hey"));
  REQUIRE(t.next_inbound());
  CHECK(t.deliver(reply("qq", "U2", "**bold**")) == "");
  auto posts = t.api.posts();
  REQUIRE(posts.size() == 1);
  CHECK(posts[0]["msg_type"] == 2);
  CHECK(posts[0]["markdown"] == "**bold**");
}

TEST_CASE("qq resumes after a drop and replays without loss or repeats") {
  qqt t;
  t.start({{"ackMessage", ""}});
  REQUIRE(t.api.wait_sessions(1, 10s));
  t.api.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U1", "one"));
  auto a = t.next_inbound();
  REQUIRE(a);
  CHECK(a->content == "one");
  CHECK(eventually([&] { return t.api.heartbeats() >= 1; }, 10s));

  t.api.replay_overlap(true); // the replay includes "one" again
  t.api.drop();
  t.api.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U1", "two"));
  REQUIRE(t.api.wait_sessions(2, 15s));
  auto b = t.next_inbound(10s);
  REQUIRE(b);
  CHECK(b->content == "two");
  CHECK(t.api.resumes() == 1);
  CHECK(t.api.identifies() == 1);
  CHECK_FALSE(t.next_inbound(1s));
  CHECK(t.wait_state("connected"));

  // Reconnect (op 7) resumes too; Invalid Session starts afresh.
  t.api.ask_reconnect();
  REQUIRE(t.api.wait_sessions(3, 15s));
  CHECK(t.api.resumes() == 2);
  t.api.invalidate_session();
  REQUIRE(t.api.wait_sessions(4, 15s));
  CHECK(t.api.identifies() == 2);
  t.api.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U1", "three"));
  auto c = t.next_inbound(10s);
  REQUIRE(c);
  CHECK(c->content == "three");
}

TEST_CASE("qq honours 429 on sends") {
  qqt t;
  t.start({{"ackMessage", ""}});
  t.api.limit_posts(1, 0.3);
  CHECK(t.deliver(reply("qq", "U1", "patience")) == "");
  CHECK(t.api.post_calls() == 2);
  CHECK(t.api.posts().size() == 1);
  t.api.limit_posts(10, 0.1);
  CHECK(t.deliver(reply("qq", "U1", "too much")).find("429")
        != std::string::npos);
  CHECK(t.status().failed == 1);
}

TEST_CASE("qq skips malformed gateway payloads and stays up") {
  qqt t;
  t.start({{"ackMessage", ""}});
  REQUIRE(t.api.wait_sessions(1, 10s));
  t.api.push_raw("{not json");
  t.api.push_raw(R"({"op":"zero"})");
  t.api.push("C2C_MESSAGE_CREATE", json{{"content", "no author"}});
  t.api.push("GROUP_AT_MESSAGE_CREATE", json::array());
  t.api.push("C2C_MESSAGE_CREATE",
             json{{"author", 5}, {"id", 7}, {"content", {{"x", 1}}}});
  t.api.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U3", "fine"));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "fine");
  CHECK(t.status().state == "connected");
  CHECK(t.api.identifies() == 1);
}

TEST_CASE("qq saves attachments under the media folder within the cap") {
  qqt t;
  t.api.host_file("small.png", std::string(64, 's'));
  t.api.host_file("big.bin", std::string(4096, 'b'));
  t.start({{"ackMessage", ""}, {"downloadMaxBytes", 1000}});
  REQUIRE(t.api.wait_sessions(1, 10s));
  auto d = fake_qq::c2c_message("U1", "files");
  d["attachments"] = json::array(
    {{{"content_type", "image/png"}, {"filename", "small.png"},
      {"url", t.api.file_url("small.png")}},
     {{"content_type", "application/octet-stream"}, {"filename", "big.bin"},
      {"url", t.api.file_url("big.bin")}}});
  t.api.push("C2C_MESSAGE_CREATE", d);
  auto in = t.next_inbound();
  REQUIRE(in);
  REQUIRE(in->media.size() == 1);
  auto saved = std::filesystem::path(in->media[0]);
  CHECK(saved.parent_path() == t.dir.path + "/media/qq");
  CHECK(saved.filename().string() == d["id"].get<std::string>() + "_0_small.png");
  CHECK(std::filesystem::file_size(saved) == 64);
  CHECK(in->content.find("[image: " + in->media[0] + "]") != std::string::npos);
  CHECK(in->content.find("big.bin unavailable: 4096 bytes is over the limit")
        != std::string::npos);
}

TEST_CASE("qq with a wrong secret reports an error with the key") {
  qqt t;
  t.start({{"secret", "wrong-secret"}});
  CHECK(t.wait_state("error"));
  auto detail = t.status().detail;
  CHECK(detail.find("channels.qq.secret") != std::string::npos);
  CHECK(detail.find("wrong-secret") == std::string::npos); // never the secret
  CHECK(t.api.identifies() == 0);
}
