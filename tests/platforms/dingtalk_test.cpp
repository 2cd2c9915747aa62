// The DingTalk adapter against a scripted OpenAPI and Stream mode server.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "actors/channels/dingtalk/dingtalk_frame.hpp"
#include "actors/channels/dingtalk/dingtalk_sender.hpp"
#include "actors/channels/dingtalk/dingtalk_channel.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_dingtalk.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct dt : adapter_probe {
  temp_dir dir;
  fake_dingtalk api;

  ~dt() { stop(); }

  void start(json extra = json::object()) {
    json raw{{"enabled", true}, {"clientId", fake_dingtalk::client_id},
             {"clientSecret", fake_dingtalk::client_secret},
             {"apiBase", api.api_base()}};
    raw.update(extra);
    adapter = dingtalk::make_channel(
      sys, channel_settings_for("dingtalk", raw, dir.path), "dingtalk",
      as_manager());
  }

  json meta(const inbound_msg& m) { return json::parse(m.metadata_json); }
};

std::string slurp(const std::string& path) {
  std::ifstream f{path, std::ios::binary};
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

} // namespace

TEST_CASE("dingtalk frames and robot messages read as the stream sdk sends them") {
  std::string why;
  auto text = R"({"specVersion":"1.0","type":"SYSTEM","headers":{"contentType":
    "application/json","messageId":"m1","time":"1683279456460","topic":"ping"},
    "data":"{\"opaque\":\"abc\"}"})";
  auto f = dingtalk::read_frame(text, why);
  REQUIRE(f);
  CHECK(f->type == "SYSTEM");
  CHECK(f->topic == "ping");
  auto pong = json::parse(dingtalk::pong_frame(*f));
  CHECK(pong["code"] == 200);
  CHECK(pong["headers"]["messageId"] == "m1");
  CHECK(pong["data"] == "{\"opaque\":\"abc\"}");

  dingtalk::stream_frame cb{"CALLBACK", dingtalk::bot_topic, "cb9", "{}"};
  auto ack = json::parse(dingtalk::ack_frame(cb));
  CHECK(ack["code"] == 200);
  CHECK(ack["message"] == "OK");
  CHECK(ack["headers"]["messageId"] == "cb9");
  CHECK(ack["headers"]["contentType"] == "application/json");
  CHECK(ack["data"].is_string());
  dingtalk::stream_frame ev{"EVENT", "*", "ev1", "{}"};
  CHECK(json::parse(json::parse(dingtalk::ack_frame(ev))["data"]
                      .get<std::string>())["status"] == "SUCCESS");

  CHECK_FALSE(dingtalk::read_frame("][", why));
  CHECK_FALSE(dingtalk::read_frame(R"({"type":"MYSTERY","headers":{}})", why));
  CHECK_FALSE(dingtalk::read_frame(
    R"({"type":"CALLBACK","headers":{"topic":"t"},"data":"{}"})", why));
  CHECK(why == "CALLBACK frame without a messageId");

  dingtalk::dingtalk_config cfg;
  auto group = fake_dingtalk::text("s1", "hello team", "cidG==", false);
  auto b = dingtalk::read_bot_message(group.dump(), cfg, why);
  REQUIRE(b);
  CHECK(b->is_group);
  CHECK(b->msg.chat_id == "group:cidG==");
  CHECK(b->msg.sender_id == "s1");
  CHECK(b->msg.content == "hello team");
  CHECK(b->msg.session_key_override.empty());
  auto m = json::parse(b->msg.metadata_json);
  CHECK(m["_is_group"] == true);
  CHECK(m["_mentioned"] == false);
  CHECK(m["_message_id"] == group["msgId"]);
  cfg.group_user_isolation = true;
  b = dingtalk::read_bot_message(group.dump(), cfg, why);
  REQUIRE(b);
  CHECK(b->msg.session_key_override == "dingtalk:group:cidG==:s1");

  auto dm = fake_dingtalk::text("s2", "hi");
  b = dingtalk::read_bot_message(dm.dump(), cfg, why);
  REQUIRE(b);
  CHECK(b->msg.chat_id == "s2");
  CHECK(json::parse(b->msg.metadata_json)["_mentioned"] == true);

  auto rich = fake_dingtalk::text("s3", "");
  rich.erase("text");
  rich["msgtype"] = "richText";
  rich["content"] = {{"richText", json::array({{{"text", "look"}},
                                               {{"type", "picture"},
                                                {"downloadCode", "dc1"}},
                                               {{"text", "here"}}})}};
  b = dingtalk::read_bot_message(rich.dump(), cfg, why);
  REQUIRE(b);
  CHECK(b->msg.content == "look here");
  REQUIRE(b->media.size() == 1);
  CHECK(b->media[0].download_code == "dc1");

  CHECK_FALSE(dingtalk::read_bot_message("[1]", cfg, why));
  CHECK(why.rfind("malformed", 0) == 0);
  auto nosender = dm;
  nosender.erase("senderStaffId");
  nosender.erase("senderId");
  CHECK_FALSE(dingtalk::read_bot_message(nosender.dump(), cfg, why));
  auto odd = dm;
  odd["msgtype"] = "interactiveCard";
  CHECK_FALSE(dingtalk::read_bot_message(odd.dump(), cfg, why));
  CHECK(why == "unsupported msgtype \"interactiveCard\"");

  cfg.client_id = "robot1";
  auto [gpath, gbody] = dingtalk::send_request(cfg, "group:cidG", "**hi**",
                                               true);
  CHECK(gpath == "/v1.0/robot/groupMessages/send");
  CHECK(gbody["openConversationId"] == "cidG");
  CHECK(gbody["robotCode"] == "robot1");
  CHECK(gbody["msgKey"] == "sampleMarkdown");
  auto param = json::parse(gbody["msgParam"].get<std::string>());
  CHECK(param["text"] == "**hi**");
  CHECK(param["title"] == "hi");
  auto [ppath, pbody] = dingtalk::send_request(cfg, "s2", "working", false);
  CHECK(ppath == "/v1.0/robot/oToMessages/batchSend");
  CHECK(pbody["userIds"] == json::array({"s2"}));
  CHECK(pbody["msgKey"] == "sampleText");
}

TEST_CASE("dingtalk round trip acks only once handed on and replies by the robot apis") {
  dt t;
  t.start();
  REQUIRE(t.api.wait_connections(1, 10s));
  CHECK(t.wait_state("connected"));
  auto id = t.api.push(fake_dingtalk::text("staff1", "status please"));
  std::optional<inbound_msg> in;
  t.self->receive([&](inbox_record& r) -> inbox_receipt {
    // Not acknowledged while the message is not yet journaled.
    CHECK(t.api.acked().empty());
    in = std::move(r.msg);
    return inbox_receipt{"probe.1", false};
  }, caf::after(10s) >> [] {});
  REQUIRE(in);
  CHECK(in->chat_id == "staff1");
  CHECK(in->sender_id == "staff1");
  CHECK(in->content == "status please");
  REQUIRE(t.api.wait_acked(1, 5s));
  CHECK(t.api.acked()[0] == id);

  CHECK(t.deliver(reply("dingtalk", "staff1", "All **green**")) == "");
  CHECK(t.deliver(reply("dingtalk", "staff1", "running a tool",
                        outbound_kind::progress)) == "");
  CHECK(t.deliver(reply("dingtalk", "staff1", "x", outbound_kind::delta))
        == "");

  t.api.push(fake_dingtalk::text("staff2", "group ask", "cidG1=="));
  auto g = t.next_inbound();
  REQUIRE(g);
  CHECK(g->chat_id == "group:cidG1==");
  CHECK(t.meta(*g)["_mentioned"] == true);
  CHECK(t.deliver(reply("dingtalk", g->chat_id, "group answer")) == "");

  auto sends = t.api.sends();
  REQUIRE(sends.size() == 3);
  CHECK(sends[0]["path"] == "/v1.0/robot/oToMessages/batchSend");
  CHECK(sends[0]["body"]["userIds"] == json::array({"staff1"}));
  CHECK(sends[0]["body"]["msgKey"] == "sampleMarkdown");
  CHECK(sends[0]["param"]["text"] == "All **green**");
  CHECK(sends[1]["body"]["msgKey"] == "sampleText");
  CHECK(sends[1]["param"]["content"] == "running a tool");
  CHECK(sends[2]["path"] == "/v1.0/robot/groupMessages/send");
  CHECK(sends[2]["body"]["openConversationId"] == "cidG1==");
  CHECK(t.api.token_calls() == 1); // the token is cached
}

TEST_CASE("dingtalk answers system pings and takes a new ticket on disconnect") {
  dt t;
  t.start();
  REQUIRE(t.api.wait_connections(1, 10s));
  t.api.ping(R"({"opaque":"p-42"})");
  REQUIRE(t.api.wait_pongs(1, 5s));
  auto pong = t.api.pongs()[0];
  CHECK(pong["code"] == 200);
  CHECK(pong["data"] == R"({"opaque":"p-42"})");
  CHECK(pong["headers"]["topic"] == "ping");

  t.api.ask_disconnect();
  REQUIRE(t.api.wait_connections(2, 15s));
  CHECK(t.api.opens() == 2); // a fresh ticket for the new connection
  t.api.push(fake_dingtalk::text("staff1", "after the refresh"));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "after the refresh");
}

TEST_CASE("dingtalk reconnects mid-stream with nothing lost and nothing repeated") {
  dt t;
  t.start();
  REQUIRE(t.api.wait_connections(1, 10s));
  t.api.ignore_acks(true); // as if our acks were lost in the drop
  auto first = t.api.push(fake_dingtalk::text("staff1", "first"));
  auto a = t.next_inbound();
  REQUIRE(a);
  t.api.drop();
  REQUIRE(t.api.wait_connections(2, 15s));
  t.api.ignore_acks(false);
  t.api.push(fake_dingtalk::text("staff1", "second"));
  auto b = t.next_inbound();
  REQUIRE(b);
  CHECK(b->content == "second");
  // "first" came again: acknowledged (its second ack), not handed on again
  // (it would have been handed on before that ack).
  REQUIRE(t.api.wait_acked(3, 15s));
  CHECK_FALSE(t.next_inbound(300ms));
  auto acks = t.api.acked();
  CHECK(std::count(acks.begin(), acks.end(), first) == 2);

  // The inbox could not take a message: it is not acknowledged, so DingTalk
  // sends it again after the next drop and it is handed on then.
  t.api.push(fake_dingtalk::text("staff1", "third"));
  bool refused = false;
  t.self->receive([&](inbox_record&) -> caf::result<inbox_receipt> {
    refused = true;
    return caf::make_error(caf::sec::runtime_error, "journal full");
  }, caf::after(10s) >> [] {});
  REQUIRE(refused);
  t.api.drop();
  REQUIRE(t.api.wait_connections(3, 15s));
  auto c = t.next_inbound();
  REQUIRE(c);
  CHECK(c->content == "third");
  CHECK(t.wait_state("connected"));
}

TEST_CASE("dingtalk skips malformed frames and payloads and stays up") {
  dt t;
  t.start();
  REQUIRE(t.api.wait_connections(1, 10s));
  t.api.push_raw("][");
  t.api.push_raw(R"({"type":"MYSTERY","headers":{"messageId":"x"}})");
  t.api.push_raw(R"({"type":"CALLBACK","headers":{"topic":"/v1.0/im/bot/messages/get"},"data":"{}"})");
  t.api.push(json("just a string"));
  auto nosender = fake_dingtalk::text("", "who am i");
  nosender.erase("senderId");
  t.api.push(nosender);
  t.api.push(fake_dingtalk::text("staff1", "ok"));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "ok");
  REQUIRE(t.api.wait_acked(3, 5s)); // bad payloads are acked, not re-sent
  CHECK(t.status().state == "connected");
  CHECK(t.api.connections() == 1);
}

TEST_CASE("dingtalk waits out a 429 on send") {
  dt t;
  t.start();
  t.api.limit_sends(1, 1);
  CHECK(t.deliver(reply("dingtalk", "staff1", "eventually")) == "");
  CHECK(t.api.send_calls() == 2);
  REQUIRE(t.api.sends().size() == 1);
  t.api.limit_sends(5, 1);
  auto err = t.deliver(reply("dingtalk", "staff1", "never"));
  CHECK(err.find("429") != std::string::npos);
  CHECK(t.api.sends().size() == 1);
}

TEST_CASE("dingtalk refuses private chats with a notice when disablePrivateChat") {
  dt t;
  t.start(json{{"disablePrivateChat", true}, {"groupUserIsolation", true}});
  REQUIRE(t.api.wait_connections(1, 10s));
  t.api.push(fake_dingtalk::text("staff9", "hello privately"));
  t.api.push(fake_dingtalk::text("staff9", "hello group", "cidG2"));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "hello group");
  CHECK(in->session_key_override == "dingtalk:group:cidG2:staff9");
  REQUIRE(t.api.wait_acked(2, 5s));
  std::vector<json> sends;
  for (int i = 0; i < 250 && sends.empty(); ++i) {
    sends = t.api.sends();
    std::this_thread::sleep_for(20ms);
  }
  REQUIRE(sends.size() == 1);
  CHECK(sends[0]["body"]["userIds"] == json::array({"staff9"}));
}

TEST_CASE("dingtalk saves pictures under the media dir within the size cap") {
  dt t;
  t.api.add_file("dc-small", "JPEG-BYTES");
  t.api.add_file("dc-big", std::string(4096, 'x'));
  t.start(json{{"maxMediaBytes", 1000}});
  REQUIRE(t.api.wait_connections(1, 10s));
  t.api.push(fake_dingtalk::picture("staff1", "dc-small"));
  auto in = t.next_inbound();
  REQUIRE(in);
  REQUIRE(in->media.size() == 1);
  CHECK(in->media[0].rfind(t.dir.path + "/media/dingtalk/", 0) == 0);
  CHECK(slurp(in->media[0]) == "JPEG-BYTES");
  CHECK(in->content.find(in->media[0]) != std::string::npos);

  t.api.push(fake_dingtalk::picture("staff1", "dc-big"));
  auto big = t.next_inbound();
  REQUIRE(big);
  CHECK(big->media.empty());
  CHECK(big->content.find("unavailable") != std::string::npos);
  CHECK(big->content.find("over the limit") != std::string::npos);
}

TEST_CASE("dingtalk bad keys show as error with the key path") {
  dt t;
  t.start(json{{"clientSecret", "wrong-secret"}});
  CHECK(t.wait_state("error"));
  auto detail = t.status().detail;
  CHECK(detail.find("channels.dingtalk.clientId/clientSecret")
        != std::string::npos);
  CHECK(detail.find("wrong-secret") == std::string::npos);
  t.stop();
  t.start(json{{"clientId", ""}, {"maxMediaBytes", "lots"}});
  CHECK(t.wait_state("error"));
  detail = t.status().detail;
  CHECK(detail.find("channels.dingtalk.clientId: missing")
        != std::string::npos);
  CHECK(detail.find("channels.dingtalk.maxMediaBytes") != std::string::npos);
}
