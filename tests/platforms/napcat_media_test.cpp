// Attachments out to NapCat: OneBot v11 segments with the file inline as
// base64:// — pictures with the words, sound, video and files alone.
#include <doctest/doctest.h>

#include <fstream>
#include <thread>

#include "actors/channels/napcat/napcat_channel.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_napcat.hpp"
#include "tests/platforms/log_ring.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct napcat_media_probe : adapter_probe {
  log_ring log{"channel.napcat"};
  temp_dir dir;
  fake_napcat api;

  napcat_media_probe() {
    json raw{
      {"enabled", true}, {"wsUrl", api.ws_url()}, {"accessToken", "nap-token"}};
    adapter =
      napcat::make_channel(sys, channel_settings_for("napcat", raw, dir.path),
                           "napcat", as_manager());
    REQUIRE(api.wait_connections(1, 10s));
    auto end = std::chrono::steady_clock::now() + 10s;
    // Logged in: the action line is up.
    while (status().detail != "as nano (10001)"
           && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(20ms);
  }
  ~napcat_media_probe() { stop(); }

  std::string write(const std::string& name, const std::string& bytes) {
    auto path = dir.path + "/" + name;
    std::ofstream{path, std::ios::binary} << bytes;
    return path;
  }
};

outbound_msg napcat_with_media(const std::string& chat, const std::string& text,
                               const std::vector<std::string>& media) {
  auto m = reply("napcat", chat, text);
  m.metadata_json = json{{"media", media}}.dump();
  return m;
}

} // namespace

TEST_CASE("napcat sends a reply's pictures with the words and files alone") {
  napcat_media_probe t;
  auto png = t.write("cat.png", std::string(2000, 'c'));
  auto wav = t.write("meow.wav", std::string(900, 'w'));
  auto pdf = t.write("cat facts.pdf", std::string(500, 'f'));
  CHECK(t.deliver(napcat_with_media("group:555", "a cat", {png, wav, pdf}))
        == "");
  auto sends = t.api.sends();
  REQUIRE(sends.size() == 3);
  CHECK(sends[0]["action"] == "send_group_msg");
  CHECK(sends[0]["group_id"] == 555);
  CHECK(sends[0]["text"] == "a cat");
  REQUIRE(sends[0]["media"].size() == 1);
  CHECK(sends[0]["media"][0]["type"] == "image");
  CHECK(sends[0]["media"][0]["bytes"] == 2000);
  CHECK(sends[0]["media"][0]["base64_chars"] == 2668);
  CHECK(sends[1]["text"] == "");
  CHECK(sends[1]["media"]
        == json::array(
          {{{"type", "record"}, {"bytes", 900}, {"base64_chars", 1200}}}));
  CHECK(sends[2]["media"][0]["type"] == "file");
  CHECK(sends[2]["media"][0]["name"] == "cat facts.pdf");
  CHECK(sends[2]["media"][0]["bytes"] == 500);

  // A picture link goes as it is.
  CHECK(t.deliver(
          napcat_with_media("private:42", "", {"https://example.org/a.jpg"}))
        == "");
  sends = t.api.sends();
  REQUIRE(sends.size() == 4);
  CHECK(sends[3]["action"] == "send_private_msg");
  CHECK(sends[3]["media"]
        == json::array(
          {{{"type", "image"}, {"file", "https://example.org/a.jpg"}}}));
}

TEST_CASE("napcat sends the words when an attachment is missing or refused") {
  napcat_media_probe t;
  auto gone = t.dir.path + "/napcat-vanished.png";
  CHECK(t.deliver(napcat_with_media("private:42", "see picture", {gone}))
        == "");
  auto sends = t.api.sends();
  REQUIRE(sends.size() == 1);
  CHECK(sends[0]["text"] == "see picture");
  CHECK(sends[0]["media"].empty());
  CHECK(t.log.wait_line({"napcat-vanished.png", "does not exist"}));

  // NapCat refuses the message with the picture: the words go alone.
  auto png = t.write("napcat-refused.png", "PNG");
  t.api.fail_sends(1);
  CHECK(t.deliver(napcat_with_media("private:42", "second try", {png})) == "");
  sends = t.api.sends();
  REQUIRE(sends.size() == 2);
  CHECK(sends[1]["text"] == "second try");
  CHECK(sends[1]["media"].empty());
  CHECK(t.log.wait_line({"napcat-refused.png", "retcode=1200"}));
}
