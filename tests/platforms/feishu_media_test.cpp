// Attachments out to Feishu: uploaded (im/v1/images, im/v1/files), then
// sent as image/file messages with the keys the uploads answered.
#include <doctest/doctest.h>

#include <fstream>

#include "actors/channels/feishu/feishu_channel.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_feishu.hpp"
#include "tests/platforms/log_ring.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct feishu_media_probe : adapter_probe {
  log_ring log{"channel.feishu"};
  temp_dir dir;
  fake_feishu api;

  feishu_media_probe() {
    json raw{{"enabled", true},
             {"appId", fake_feishu::app_id},
             {"appSecret", fake_feishu::app_secret},
             {"apiBase", api.api_base()},
             {"reactEmoji", ""}};
    adapter =
      feishu::make_channel(sys, channel_settings_for("feishu", raw, dir.path),
                           "feishu", as_manager());
  }
  ~feishu_media_probe() { stop(); }

  std::string write(const std::string& name, const std::string& bytes) {
    auto path = dir.path + "/" + name;
    std::ofstream{path, std::ios::binary} << bytes;
    return path;
  }
};

outbound_msg with_media(const std::string& chat, const std::string& text,
                        const std::vector<std::string>& media) {
  auto m = reply("feishu", chat, text);
  m.metadata_json = json{{"media", media}}.dump();
  return m;
}

} // namespace

TEST_CASE("feishu uploads a reply's picture and file and sends their keys") {
  feishu_media_probe t;
  REQUIRE(t.api.wait_connections(1, 10s));
  auto png = t.write("chart.png", std::string(1500, 'P'));
  auto pdf = t.write("report.pdf", std::string(2500, 'D'));
  CHECK(t.deliver(with_media("oc_m1", "here you go", {png, pdf})) == "");

  auto up = t.api.uploads();
  REQUIRE(up.size() == 2);
  CHECK(up[0]["path"] == "/open-apis/im/v1/images");
  CHECK(up[0]["fields"]["image_type"] == "message");
  CHECK(up[0]["file_name"] == "chart.png");
  CHECK(up[0]["bytes"] == 1500);
  CHECK(up[1]["path"] == "/open-apis/im/v1/files");
  CHECK(up[1]["fields"]["file_type"] == "pdf");
  CHECK(up[1]["fields"]["file_name"] == "report.pdf");
  CHECK(up[1]["bytes"] == 2500);

  // The words first, then each attachment by the key its upload answered.
  auto sent = t.api.sent();
  REQUIRE(sent.size() == 3);
  CHECK(sent[0]["body"]["msg_type"] == "text");
  CHECK(json::parse(sent[0]["body"]["content"].get<std::string>())["text"]
        == "here you go");
  CHECK(sent[1]["body"]["msg_type"] == "image");
  CHECK(sent[1]["body"]["receive_id"] == "oc_m1");
  CHECK(json::parse(sent[1]["body"]["content"].get<std::string>())
        == json{{"image_key", up[0]["key"]}});
  CHECK(sent[2]["body"]["msg_type"] == "file");
  CHECK(json::parse(sent[2]["body"]["content"].get<std::string>())
        == json{{"file_key", up[1]["key"]}});

  // Audio and video get the message types that play inline; an attachment
  // without words is sent alone.
  auto opus = t.write("note.opus", "OPUS");
  auto mp4 = t.write("clip.mp4", "MP4!");
  CHECK(t.deliver(with_media("ou_bob", "", {opus, mp4})) == "");
  up = t.api.uploads();
  REQUIRE(up.size() == 4);
  CHECK(up[2]["fields"]["file_type"] == "opus");
  CHECK(up[3]["fields"]["file_type"] == "mp4");
  sent = t.api.sent();
  REQUIRE(sent.size() == 5);
  CHECK(sent[3]["receive_id_type"] == "open_id");
  CHECK(sent[3]["body"]["msg_type"] == "audio");
  CHECK(sent[4]["body"]["msg_type"] == "media");
}

TEST_CASE("feishu sends the words when an attachment is missing or too big") {
  feishu_media_probe t;
  REQUIRE(t.api.wait_connections(1, 10s));
  auto gone = t.dir.path + "/feishu-vanished.png";
  auto big = t.write("feishu-huge.png", std::string(10 * 1024 * 1024 + 1, 'x'));
  CHECK(t.deliver(with_media("oc_m2", "see attached", {gone, big})) == "");
  REQUIRE(t.api.wait_sent(1, 5s));
  auto sent = t.api.sent();
  REQUIRE(sent.size() == 1);
  CHECK(json::parse(sent[0]["body"]["content"].get<std::string>())["text"]
        == "see attached");
  CHECK(t.api.uploads().empty());
  CHECK(t.log.wait_line({"feishu-vanished.png", "does not exist"}));
  CHECK(t.log.wait_line({"feishu-huge.png", "over the platform's limit"}));
}
