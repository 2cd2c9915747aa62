// The WhatsApp adapter in bridge mode against a scripted nanobot bridge
// (the original's Node/Baileys bridge protocol).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "actors/channels/manager/manager.hpp"
#include "actors/channels/whatsapp/bridge_frames.hpp"
#include "tests/platforms/whatsapp_fixture.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("whatsapp bridge frames become inbound messages") {
  auto f = whatsapp::read_bridge_frame(
    fake_whatsapp_bridge::message("M1", "4915112345678", "hallo").dump(),
    "whatsapp");
  REQUIRE(f.kind == whatsapp::bridge_frame::message);
  CHECK(f.msg.sender_id == "4915112345678");
  CHECK(f.msg.chat_id == "4915112345678@s.whatsapp.net");
  CHECK(f.msg.content == "hallo");
  auto meta = json::parse(f.msg.metadata_json);
  CHECK(meta["_message_id"] == "M1");
  CHECK(meta["_is_group"] == false);

  auto g = whatsapp::read_bridge_frame(
    fake_whatsapp_bridge::message("M2", "", "hi all", "1203630", true).dump(),
    "whatsapp");
  REQUIRE(g.kind == whatsapp::bridge_frame::message);
  CHECK(g.msg.chat_id == "1203630@g.us");
  CHECK(json::parse(g.msg.metadata_json)["_mentioned"] == true);

  CHECK(whatsapp::sender_number("4917600000001@s.whatsapp.net",
                                "98765432101234@lid")
        == "4917600000001");
  CHECK(whatsapp::sender_number("", "98765432101234@lid") == "98765432101234");
  CHECK(whatsapp::sender_number("", "+4917:3@s.whatsapp.net") == "4917");

  CHECK(whatsapp::read_bridge_frame("][", "whatsapp").kind
        == whatsapp::bridge_frame::malformed);
  CHECK(whatsapp::read_bridge_frame(R"({"type":"message","sender":"x"})",
                                    "whatsapp")
          .kind
        == whatsapp::bridge_frame::malformed);
  auto qr = whatsapp::read_bridge_frame(R"({"type":"qr","qr":"2@abc"})", "w");
  CHECK(qr.kind == whatsapp::bridge_frame::qr);
  CHECK(qr.text == "2@abc");
  auto err = whatsapp::read_bridge_frame(R"({"type":"error","error":"x"})", "w");
  CHECK(err.kind == whatsapp::bridge_frame::error);
}

TEST_CASE("whatsapp bridge round trip authenticates and waits for sent") {
  bridged t;
  t.start();
  REQUIRE(t.bridge.wait_authenticated(1, 10s));
  REQUIRE(t.bridge.tokens().size() == 1);
  CHECK(t.bridge.tokens()[0] == fake_whatsapp_bridge::token);
  CHECK(t.wait_state("connected"));
  t.bridge.push(fake_whatsapp_bridge::message("ABC1", "4915112345678",
                                              "what's up?"));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->sender_id == "4915112345678");
  CHECK(in->content == "what's up?");
  CHECK(t.meta(*in)["_message_id"] == "ABC1");

  CHECK(t.deliver(reply("whatsapp", in->chat_id, "all good")) == "");
  auto cmds = t.bridge.commands();
  REQUIRE(cmds.size() == 1);
  CHECK(cmds[0]["type"] == "send");
  CHECK(cmds[0]["to"] == "4915112345678@s.whatsapp.net");
  CHECK(cmds[0]["text"] == "all good");

  // An error frame is the bridge refusing: the manager gets the reason.
  t.bridge.fail_next(1, "Error: Not connected");
  auto err = t.deliver(reply("whatsapp", in->chat_id, "again"));
  CHECK(err.find("Not connected") != std::string::npos);
  CHECK(t.status().failed == 1);
}

TEST_CASE("whatsapp bridge reconnects mid-stream without loss or repeat") {
  bridged t;
  t.start();
  REQUIRE(t.bridge.wait_authenticated(1, 10s));
  for (auto id : {"S1", "S2", "S3"})
    t.bridge.push(fake_whatsapp_bridge::message(id, "491", id));
  t.bridge.drop(); // right behind the frames: they are in flight
  std::vector<std::string> got;
  while (got.size() < 3) {
    auto in = t.next_inbound();
    REQUIRE(in);
    got.push_back(in->content);
  }
  REQUIRE(t.bridge.wait_authenticated(2, 15s));
  // WhatsApp hands the last one to the bridge again after its reconnect.
  t.bridge.push(fake_whatsapp_bridge::message("S3", "491", "S3"));
  t.bridge.push(fake_whatsapp_bridge::message("S4", "491", "S4"));
  while (auto in = t.next_inbound(got.size() < 4 ? 10s : 1s))
    got.push_back(in->content);
  std::vector<std::string> once_each{"S1", "S2", "S3", "S4"};
  CHECK(got == once_each);
  // Sending works on the new connection.
  CHECK(t.deliver(reply("whatsapp", "491@s.whatsapp.net", "back")) == "");
}

TEST_CASE("whatsapp bridge skips malformed frames and stays up") {
  bridged t;
  t.start();
  REQUIRE(t.bridge.wait_authenticated(1, 10s));
  t.bridge.push_raw("][");
  t.bridge.push_raw(R"({"no":"type"})");
  t.bridge.push_raw(R"({"type":"message","id":"X","content":"no sender"})");
  t.bridge.push_raw(R"({"type":"message","id":7,"sender":[]})");
  t.bridge.push_raw(R"({"type":"mystery"})");
  t.bridge.push(fake_whatsapp_bridge::message("OK1", "492", "still here"));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "still here");
  CHECK_FALSE(t.next_inbound(500ms));
  CHECK(t.status().state == "connected");
  CHECK(t.bridge.authenticated() == 1);
}

TEST_CASE("whatsapp bridge shows the qr code and the bridge status") {
  bridged t;
  t.start();
  REQUIRE(t.bridge.wait_authenticated(1, 10s));
  t.bridge.push({{"type", "qr"}, {"qr", "2@Qm9vaw,xyz"}});
  auto shown = [&](const std::string& what) {
    for (int i = 0; i < 250; ++i) {
      if (t.status().detail.find(what) != std::string::npos)
        return true;
      std::this_thread::sleep_for(20ms);
    }
    return false;
  };
  CHECK(shown("2@Qm9vaw,xyz"));
  t.bridge.push({{"type", "status"}, {"status", "disconnected"}});
  CHECK(t.wait_state("disconnected"));
  t.bridge.push({{"type", "status"}, {"status", "connected"}});
  CHECK(t.wait_state("connected"));
}

TEST_CASE("whatsapp bridge media in and out") {
  bridged t;
  temp_dir bridge_media;
  auto photo = bridge_media.path + "/wa_1_ab.jpg";
  std::ofstream{photo} << "JPEGDATA";
  auto big = bridge_media.path + "/wa_2_cd.pdf";
  std::ofstream{big} << std::string(2048, 'x');
  t.start({{"maxMediaBytes", 1024}});
  REQUIRE(t.bridge.wait_authenticated(1, 10s));
  t.bridge.push(fake_whatsapp_bridge::message("P1", "493", "", "", false,
                                              {photo}));
  auto in = t.next_inbound();
  REQUIRE(in);
  REQUIRE(in->media.size() == 1);
  CHECK(in->media[0].rfind(t.dir.path + "/media/whatsapp/", 0) == 0);
  CHECK(read_all(in->media[0]) == "JPEGDATA");
  CHECK(in->content == "[image: " + in->media[0] + "]");
  t.bridge.push(fake_whatsapp_bridge::message("P2", "493", "see file", "",
                                              false, {big}));
  in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->media.empty()); // over maxMediaBytes
  CHECK(in->content.rfind("see file\n[file: wa_2_cd.pdf skipped", 0) == 0);

  auto out = reply("whatsapp", "493@s.whatsapp.net", "here it is");
  out.metadata_json = json{{"media", {photo}}}.dump();
  CHECK(t.deliver(out) == "");
  auto cmds = t.bridge.commands();
  REQUIRE(cmds.size() == 1);
  CHECK(cmds[0]["type"] == "send_media");
  CHECK(cmds[0]["filePath"] == photo);
  CHECK(cmds[0]["mimetype"] == "image/jpeg");
  CHECK(cmds[0]["caption"] == "here it is");
}

TEST_CASE("whatsapp gets a split reply's attachment once with the last piece") {
  system_fixture f;
  temp_dir dir;
  fake_whatsapp_bridge bridge;
  auto photo = dir.path + "/chart.png";
  std::ofstream{photo} << "PNG";
  json raw{{"enabled", true}, {"bridgeUrl", bridge.url()},
           {"bridgeToken", fake_whatsapp_bridge::token}};
  auto manager = spawn_channel_manager(
    f.sys, channel_settings_for("whatsapp", raw, dir.path), {}, {});
  REQUIRE(bridge.wait_authenticated(1, 10s));
  auto out = reply("whatsapp", "494@s.whatsapp.net",
                   std::string(3000, 'a') + "\n\n" + std::string(3000, 'b'));
  out.metadata_json = json{{"media", {photo}}}.dump();
  caf::anon_send(manager, out);
  // A plain reply after it: once it is there, everything the split reply
  // caused is too (one connection, in order), so the count is final.
  caf::anon_send(manager, reply("whatsapp", "494@s.whatsapp.net", "that's all"));
  REQUIRE(bridge.wait_commands(3, 10s));
  auto cmds = bridge.commands();
  REQUIRE(cmds.size() == 3);
  CHECK(cmds[2]["type"] == "send");
  CHECK(cmds[2]["text"] == "that's all");
  CHECK(cmds[0]["type"] == "send");
  CHECK(cmds[0]["text"] == std::string(3000, 'a'));
  CHECK(cmds[1]["type"] == "send_media");
  CHECK(cmds[1]["caption"] == std::string(3000, 'b'));
  caf::anon_send_exit(manager, caf::exit_reason::user_shutdown);
}

TEST_CASE("whatsapp bad keys show as errors naming the key") {
  bridged t;
  t.start({{"bridgeToken", "wrong"}});
  CHECK(t.wait_state("error"));
  CHECK(t.status().detail.find("channels.whatsapp.bridgeToken")
        != std::string::npos);
  CHECK(t.status().detail.find("wrong") == std::string::npos);
  t.stop();
  t.wa::start({{"mode", "fax"}});
  CHECK(t.status().detail.find("channels.whatsapp.mode") != std::string::npos);
  t.stop();
  t.wa::start({{"mode", "cloud"}, {"accessToken", "x"}, {"phoneNumberId", "1"},
               {"verifyToken", "v"}});
  CHECK(t.status().state == "error");
  CHECK(t.status().detail.find("channels.whatsapp.appSecret: missing")
        != std::string::npos);
}

TEST_CASE("whatsapp without bridgeToken uses the key the original saved, and "
          "names the key when there is none") {
  bridged t;
  // The original's `channels login whatsapp` leaves the key here.
  std::filesystem::create_directories(t.dir.path + "/whatsapp-auth");
  std::ofstream{t.dir.path + "/whatsapp-auth/bridge-token"}
    << fake_whatsapp_bridge::token << "\n";
  t.start({{"bridgeToken", ""}});
  CHECK(t.bridge.wait_authenticated(1, 10s));
  CHECK(t.wait_state("connected"));
  t.stop();
  std::filesystem::remove(t.dir.path + "/whatsapp-auth/bridge-token");
  t.start({{"bridgeToken", ""}});
  CHECK(t.wait_state("error"));
  CHECK(t.status().detail.find("channels.whatsapp.bridgeToken: missing")
        != std::string::npos);
  CHECK(t.status().detail.find("whatsapp-auth/bridge-token")
        != std::string::npos);
}
