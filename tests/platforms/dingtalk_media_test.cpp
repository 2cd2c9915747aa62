// Attachments out to DingTalk: uploaded through the media upload API, then
// sent as sampleImageMsg / sampleFile with the media_id it answered, to
// people (batchSend) and groups (groupMessages/send).
#include <doctest/doctest.h>

#include <fstream>

#include "actors/channels/dingtalk/dingtalk_channel.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_dingtalk.hpp"
#include "tests/platforms/log_ring.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct dingtalk_media_probe : adapter_probe {
  log_ring log{"channel.dingtalk"};
  temp_dir dir;
  fake_dingtalk api;

  dingtalk_media_probe() {
    json raw{{"enabled", true},
             {"clientId", fake_dingtalk::client_id},
             {"clientSecret", fake_dingtalk::client_secret},
             {"apiBase", api.api_base()}};
    adapter = dingtalk::make_channel(
      sys, channel_settings_for("dingtalk", raw, dir.path), "dingtalk",
      as_manager());
  }
  ~dingtalk_media_probe() { stop(); }

  std::string write(const std::string& name, const std::string& bytes) {
    auto path = dir.path + "/" + name;
    std::ofstream{path, std::ios::binary} << bytes;
    return path;
  }
};

outbound_msg dingtalk_with_media(const std::string& chat,
                                 const std::string& text,
                                 const std::vector<std::string>& media) {
  auto m = reply("dingtalk", chat, text);
  m.metadata_json = json{{"media", media}}.dump();
  return m;
}

} // namespace

TEST_CASE("dingtalk uploads a reply's attachments and sends their media ids") {
  dingtalk_media_probe t;
  REQUIRE(t.api.wait_connections(1, 10s));
  auto jpg = t.write("photo.JPEG", std::string(3000, 'J'));
  auto xlsx = t.write("sheet.xlsx", std::string(700, 'X'));
  CHECK(t.deliver(dingtalk_with_media("staff1", "the numbers", {jpg, xlsx}))
        == "");
  auto up = t.api.uploads();
  REQUIRE(up.size() == 2);
  CHECK(up[0]["type"] == "image");
  CHECK(up[0]["file_name"] == "photo.JPEG");
  CHECK(up[0]["bytes"] == 3000);
  CHECK(up[1]["type"] == "file");
  CHECK(up[1]["file_name"] == "sheet.xlsx");
  CHECK(up[1]["bytes"] == 700);
  auto sends = t.api.sends();
  REQUIRE(sends.size() == 3);
  CHECK(sends[0]["body"]["msgKey"] == "sampleMarkdown");
  CHECK(sends[1]["path"] == "/v1.0/robot/oToMessages/batchSend");
  CHECK(sends[1]["body"]["userIds"] == json::array({"staff1"}));
  CHECK(sends[1]["body"]["msgKey"] == "sampleImageMsg");
  CHECK(sends[1]["param"] == json{{"photoURL", up[0]["media_id"]}});
  CHECK(sends[2]["body"]["msgKey"] == "sampleFile");
  CHECK(sends[2]["param"]
        == json{{"mediaId", up[1]["media_id"]},
                {"fileName", "sheet.xlsx"},
                {"fileType", "xlsx"}});

  // In a group, without words: only the attachment goes.
  auto mp3 = t.write("tune.mp3", "ID3tune");
  CHECK(t.deliver(dingtalk_with_media("group:cidG1", "", {mp3})) == "");
  up = t.api.uploads();
  REQUIRE(up.size() == 3);
  CHECK(up[2]["type"] == "voice");
  sends = t.api.sends();
  REQUIRE(sends.size() == 4);
  CHECK(sends[3]["path"] == "/v1.0/robot/groupMessages/send");
  CHECK(sends[3]["body"]["openConversationId"] == "cidG1");
  CHECK(sends[3]["body"]["msgKey"] == "sampleFile");
  CHECK(sends[3]["param"]["mediaId"] == up[2]["media_id"]);
  CHECK(sends[3]["param"]["fileType"] == "mp3");
}

TEST_CASE(
  "dingtalk sends the words and a notice when an attachment is missing") {
  dingtalk_media_probe t;
  REQUIRE(t.api.wait_connections(1, 10s));
  auto gone = t.dir.path + "/dingtalk-vanished.pdf";
  CHECK(t.deliver(dingtalk_with_media("staff2", "report below", {gone})) == "");
  auto sends = t.api.sends();
  REQUIRE(sends.size() == 2);
  CHECK(sends[0]["param"]["text"] == "report below");
  CHECK(sends[1]["body"]["msgKey"] == "sampleText");
  CHECK(sends[1]["param"]["content"]
        == "[Attachment send failed: dingtalk-vanished.pdf]");
  CHECK(t.api.uploads().empty());
  CHECK(t.log.wait_line({"dingtalk-vanished.pdf", "does not exist"}));
}
