// The Feishu adapter against a scripted Open API and long connection.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "actors/channels/feishu/feishu_channel.hpp"
#include "actors/channels/feishu/feishu_frame.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_feishu.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct fs : adapter_probe {
  temp_dir dir;
  fake_feishu api;

  ~fs() { stop(); }

  void start(json extra = json::object()) {
    json raw{{"enabled", true}, {"appId", fake_feishu::app_id},
             {"appSecret", fake_feishu::app_secret},
             {"apiBase", api.api_base()}};
    raw.update(extra);
    adapter = feishu::make_channel(
      sys, channel_settings_for("feishu", raw, dir.path), "feishu",
      as_manager());
  }

  json meta(const inbound_msg& m) { return json::parse(m.metadata_json); }
};

} // namespace

TEST_CASE("feishu round trip acks after the journal and reacts") {
  fs t;
  t.start();
  REQUIRE(t.api.wait_connections(1, 10s));
  CHECK(t.wait_state("connected"));
  CHECK(t.api.wait_pings(1, 10s)); // the first ping goes out at once
  auto ev = fake_feishu::text_event("oc_g1", "group", "ou_ann",
                                    "status please", true);
  auto frame_id = t.api.push_event(ev);
  // Not journaled yet (the probe has not answered): not acknowledged.
  std::this_thread::sleep_for(500ms);
  CHECK(t.api.acked().empty());
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->chat_id == "oc_g1");
  CHECK(in->sender_id == "ou_ann");
  CHECK(in->content == "status please");
  auto mid = fake_feishu::message_id_of(ev);
  CHECK(in->session_key_override == "feishu:oc_g1:" + mid);
  CHECK(t.meta(*in)["_mentioned"] == true);
  CHECK(t.meta(*in)["_message_id"] == mid);
  REQUIRE(t.api.wait_acked(1, 5s));
  CHECK(t.api.acked()[0] == frame_id);
  CHECK(t.api.ack_codes() == std::vector<int>{200});
  REQUIRE(t.api.wait_reactions(1, 5s));
  CHECK(t.api.reactions()[0]["message_id"] == mid);
  CHECK(t.api.reactions()[0]["body"]["reaction_type"]["emoji_type"]
        == "THUMBSUP");

  auto out = reply("feishu", "oc_g1", "All **green**");
  out.session_key = in->session_key_override;
  CHECK(t.deliver(out) == "");
  auto sent = t.api.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["receive_id_type"] == "chat_id");
  CHECK(sent[0]["body"]["receive_id"] == "oc_g1");
  CHECK(sent[0]["body"]["msg_type"] == "interactive");
  auto card = json::parse(sent[0]["body"]["content"].get<std::string>());
  CHECK(card["elements"][0]["content"] == "All **green**");

  // A direct chat is answered by open_id, as plain text.
  t.api.push_event(fake_feishu::text_event("oc_p2p", "p2p", "ou_bob", "hi"));
  auto dm = t.next_inbound();
  REQUIRE(dm);
  CHECK(dm->chat_id == "ou_bob");
  CHECK(t.deliver(reply("feishu", "ou_bob", "hello")) == "");
  sent = t.api.sent();
  REQUIRE(sent.size() == 2);
  CHECK(sent[1]["receive_id_type"] == "open_id");
  CHECK(sent[1]["body"]["msg_type"] == "text");
  CHECK(json::parse(sent[1]["body"]["content"].get<std::string>())["text"]
        == "hello");
}

TEST_CASE("feishu joins a fragmented payload and acks it once") {
  fs t;
  t.start();
  REQUIRE(t.api.wait_connections(1, 10s));
  std::string long_text(3000, 'x');
  auto id = t.api.push_event(
    fake_feishu::text_event("oc_p", "p2p", "ou_bob", long_text), 3);
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == long_text);
  REQUIRE(t.api.wait_acked(1, 5s));
  std::this_thread::sleep_for(300ms);
  CHECK(t.api.acked() == std::vector<std::string>{id});
}

TEST_CASE("feishu reconnects without losing or repeating a message") {
  fs t;
  t.start();
  REQUIRE(t.api.wait_connections(1, 10s));
  t.api.ignore_acks(true); // as if our ack was lost in the drop
  t.api.push_event(fake_feishu::text_event("oc_p", "p2p", "ou_bob", "first"));
  auto a = t.next_inbound();
  REQUIRE(a);
  CHECK(a->content == "first");
  REQUIRE(t.api.wait_acked(1, 5s));
  t.api.drop();
  // Sent while the line is down: delivered on the next connection, after
  // "first" comes again (redelivered, unacknowledged).
  t.api.push_event(fake_feishu::text_event("oc_p", "p2p", "ou_bob", "second"));
  t.api.push_event(fake_feishu::text_event("oc_p", "p2p", "ou_bob", "third"));
  REQUIRE(t.api.wait_connections(2, 15s));
  t.api.ignore_acks(false);
  auto b = t.next_inbound();
  REQUIRE(b);
  CHECK(b->content == "second");
  auto c = t.next_inbound();
  REQUIRE(c);
  CHECK(c->content == "third");
  CHECK_FALSE(t.next_inbound(1s)); // "first" came again: acked, not handed on
  REQUIRE(t.api.wait_acked(4, 5s)); // first, first again, second, third
  CHECK(t.receipts == 3);
}

TEST_CASE("feishu skips malformed frames and payloads and stays up") {
  fs t;
  t.start();
  REQUIRE(t.api.wait_connections(1, 10s));
  t.api.push_raw("\xff\xff\xff");              // not a frame
  t.api.push_raw(std::string("\x08\x01", 2));  // required fields missing
  feishu::frame odd;
  odd.method = 7;
  t.api.push_raw(feishu::encode(odd));          // an unknown method
  t.api.push_payload("{not json");              // acknowledged with 500
  t.api.push_payload(R"({"schema":"2.0","header":{"event_type":"x.y"}})");
  auto broken = fake_feishu::text_event("oc_p", "p2p", "ou_bob", "lost");
  broken["event"]["message"].erase("message_id");
  t.api.push_event(broken);
  t.api.push_event(fake_feishu::text_event("oc_p", "p2p", "ou_bob", "ok"));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "ok");
  REQUIRE(t.api.wait_acked(3, 5s));
  auto codes = t.api.ack_codes();
  CHECK(codes.front() == 500);
  CHECK(t.status().state == "connected");
  CHECK(t.api.connections() == 1);
}

TEST_CASE("feishu replies in thread and honours rate limits and tokens") {
  fs t;
  t.start(json{{"replyToMessage", true}, {"reactEmoji", ""}});
  REQUIRE(t.api.wait_connections(1, 10s));
  auto ev = fake_feishu::text_event("oc_g2", "group", "ou_ann", "q", true);
  t.api.push_event(ev);
  auto in = t.next_inbound();
  REQUIRE(in);
  auto out = reply("feishu", "oc_g2", "answer");
  out.session_key = in->session_key_override;
  CHECK(t.deliver(out) == "");
  auto sent = t.api.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["reply_to"] == fake_feishu::message_id_of(ev));
  CHECK(sent[0]["body"]["reply_in_thread"] == true);

  auto tokens = t.api.token_fetches();
  t.api.limit_sends(1, 1);
  auto calls = t.api.send_calls();
  CHECK(t.deliver(out) == "");
  CHECK(t.api.send_calls() == calls + 2);
  t.api.limit_sends(1, 1, true);
  CHECK(t.deliver(out) == "");
  CHECK(t.api.token_fetches() == tokens); // the cached token served them
  t.api.limit_sends(5, 1);
  CHECK(t.deliver(out).find("429") != std::string::npos);
  t.api.limit_sends(0, 1);
  t.api.expire_token();
  CHECK(t.deliver(out) == "");
  CHECK(t.api.token_fetches() == tokens + 1);
  CHECK(t.api.reactions().empty()); // reactEmoji "" turns them off
}

TEST_CASE("feishu saves media under the size cap") {
  fs t;
  t.start(json{{"maxMediaBytes", 64}});
  REQUIRE(t.api.wait_connections(1, 10s));
  t.api.add_resource("img_small", std::string(40, 'p'));
  t.api.add_resource("file_big", std::string(100, 'f'));
  auto ev = fake_feishu::text_event("oc_p", "p2p", "ou_bob", "");
  ev["event"]["message"]["message_type"] = "image";
  ev["event"]["message"]["content"] = json{{"image_key", "img_small"}}.dump();
  t.api.push_event(ev);
  auto in = t.next_inbound();
  REQUIRE(in);
  REQUIRE(in->media.size() == 1);
  auto path = in->media[0];
  CHECK(path.rfind(t.dir.path + "/media/feishu/", 0) == 0);
  CHECK(std::filesystem::file_size(path) == 40);
  CHECK(in->content == "[image: " + path + "]");

  auto big = fake_feishu::text_event("oc_p", "p2p", "ou_bob", "");
  big["event"]["message"]["message_type"] = "file";
  big["event"]["message"]["content"]
    = json{{"file_key", "file_big"}, {"file_name", "big.bin"}}.dump();
  t.api.push_event(big);
  in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->media.empty());
  CHECK(in->content.find("big.bin unavailable") != std::string::npos);

  // A file name with folders stays inside the media folder.
  t.api.add_resource("file_evil", "x");
  auto evil = fake_feishu::text_event("oc_p", "p2p", "ou_bob", "");
  evil["event"]["message"]["message_type"] = "file";
  evil["event"]["message"]["content"]
    = json{{"file_key", "file_evil"}, {"file_name", "../../etc/passwd"}}.dump();
  t.api.push_event(evil);
  in = t.next_inbound();
  REQUIRE(in);
  REQUIRE(in->media.size() == 1);
  auto saved = std::filesystem::path(in->media[0]);
  CHECK(saved.parent_path() == t.dir.path + "/media/feishu");
  CHECK(saved.filename().string().find("passwd") != std::string::npos);
}

TEST_CASE("feishu reports bad keys with their path") {
  fs t;
  t.start(json{{"appSecret", "wrong"}});
  CHECK(t.wait_state("error"));
  CHECK(t.status().detail.find("channels.feishu.appId/appSecret")
        != std::string::npos);
  CHECK(t.status().detail.find("wrong") == std::string::npos);
  t.stop();
  t.start(json{{"appId", ""}, {"domain", "larkk"}});
  CHECK(t.status().state == "error");
  auto detail = t.status().detail;
  CHECK(detail.find("channels.feishu.appId: missing") != std::string::npos);
  CHECK(detail.find("channels.feishu.domain") != std::string::npos);
}
