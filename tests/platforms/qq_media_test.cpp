// Attachments out to QQ: uploaded in base64 to the chat's /files endpoint,
// then posted as msg_type 7 with the file_info it answered, as replies
// (msg_id, msg_seq counting on).
#include <doctest/doctest.h>

#include <fstream>

#include "actors/channels/qq/qq_channel.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_qq.hpp"
#include "tests/platforms/log_ring.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct qq_media_probe : adapter_probe {
  log_ring log{"channel.qq"};
  temp_dir dir;
  fake_qq api;

  qq_media_probe() {
    json raw{{"enabled", true},
             {"appId", fake_qq::app_id},
             {"secret", fake_qq::secret},
             {"apiBase", api.base_url()},
             {"tokenBase", api.base_url()},
             {"ackMessage", ""}};
    adapter = qq::make_channel(sys, channel_settings_for("qq", raw, dir.path),
                               "qq", as_manager());
  }
  ~qq_media_probe() { stop(); }

  std::string write(const std::string& name, const std::string& bytes) {
    auto path = dir.path + "/" + name;
    std::ofstream{path, std::ios::binary} << bytes;
    return path;
  }
};

outbound_msg qq_with_media(const std::string& chat, const std::string& text,
                           const std::vector<std::string>& media) {
  auto m = reply("qq", chat, text);
  m.metadata_json = json{{"media", media}}.dump();
  return m;
}

} // namespace

TEST_CASE("qq uploads a reply's attachments and posts them as rich media") {
  qq_media_probe t;
  REQUIRE(t.api.wait_sessions(1, 10s));
  auto d = fake_qq::group_message("G7", "M1", "draw it");
  t.api.push("GROUP_AT_MESSAGE_CREATE", d);
  REQUIRE(t.next_inbound());
  auto png = t.write("drawing.png", std::string(3001, 'p'));
  auto doc = t.write("notes.txt", "plain notes");
  CHECK(t.deliver(qq_with_media("G7", "done", {png, doc})) == "");

  auto up = t.api.uploads();
  REQUIRE(up.size() == 2);
  CHECK(up[0]["kind"] == "groups");
  CHECK(up[0]["target"] == "G7");
  CHECK(up[0]["file_type"] == 1);
  CHECK(up[0]["file_name"].is_null()); // a named picture shows as a file
  CHECK(up[0]["srv_send_msg"] == false);
  CHECK(up[0]["bytes"] == 3001);
  CHECK(up[0]["base64_chars"] == 4004);
  CHECK(up[1]["file_type"] == 4);
  CHECK(up[1]["file_name"] == "notes.txt");
  CHECK(up[1]["bytes"] == 11);

  auto posts = t.api.posts();
  REQUIRE(posts.size() == 3);
  CHECK(posts[0]["msg_type"] == 0);
  CHECK(posts[0]["content"] == "done");
  for (size_t i = 1; i < 3; ++i) {
    CHECK(posts[i]["kind"] == "groups");
    CHECK(posts[i]["msg_type"] == 7);
    CHECK(posts[i]["msg_id"] == d["id"]);
    CHECK(posts[i]["media"] == json{{"file_info", up[i - 1]["file_info"]}});
  }
  CHECK(posts[0]["msg_seq"] < posts[1]["msg_seq"]);
  CHECK(posts[1]["msg_seq"] < posts[2]["msg_seq"]);

  // A one-to-one chat: the users endpoint; video and voice by extension.
  t.api.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U5", "clip?"));
  REQUIRE(t.next_inbound());
  auto mp4 = t.write("clip.mp4", "MP4DATA");
  auto mp3 = t.write("tune.mp3", "ID3");
  CHECK(t.deliver(qq_with_media("U5", "", {mp4, mp3})) == "");
  up = t.api.uploads();
  REQUIRE(up.size() == 4);
  CHECK(up[2]["kind"] == "users");
  CHECK(up[2]["target"] == "U5");
  CHECK(up[2]["file_type"] == 2);
  CHECK(up[3]["file_type"] == 3);
  posts = t.api.posts();
  REQUIRE(posts.size() == 5);
  CHECK(posts[3]["kind"] == "users");
  CHECK(posts[3]["media"]["file_info"] == up[2]["file_info"]);
}

TEST_CASE("qq sends the words and a notice when an attachment is missing") {
  qq_media_probe t;
  REQUIRE(t.api.wait_sessions(1, 10s));
  t.api.push("C2C_MESSAGE_CREATE", fake_qq::c2c_message("U6", "file?"));
  REQUIRE(t.next_inbound());
  auto gone = t.dir.path + "/qq-vanished.png";
  CHECK(t.deliver(qq_with_media("U6", "here it is", {gone})) == "");
  auto posts = t.api.posts();
  REQUIRE(posts.size() == 2);
  CHECK(posts[0]["content"] == "here it is");
  CHECK(posts[1]["msg_type"] == 0);
  CHECK(posts[1]["content"] == "[Attachment send failed: qq-vanished.png]");
  CHECK(t.api.uploads().empty());
  CHECK(t.log.wait_line({"qq-vanished.png", "does not exist"}));
}
