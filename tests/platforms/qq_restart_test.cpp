// The QQ sender keeps which chats are groups across a restart
// (<config dir>/qq/<name>-groups.json).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "actors/channels/qq/qq_channel.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_qq.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct qq_restart_probe : adapter_probe {
  temp_dir dir;
  fake_qq api;

  ~qq_restart_probe() { stop(); }

  void start() {
    json raw{{"enabled", true},
             {"appId", fake_qq::app_id},
             {"secret", fake_qq::secret},
             {"apiBase", api.base_url()},
             {"tokenBase", api.base_url()},
             {"ackMessage", ""}};
    adapter = qq::make_channel(sys, channel_settings_for("qq", raw, dir.path),
                               "qq", as_manager());
  }
};

} // namespace

TEST_CASE("qq still knows a group after a restart") {
  qq_restart_probe t;
  t.start();
  REQUIRE(t.api.wait_sessions(1, 10s));
  t.api.push("GROUP_AT_MESSAGE_CREATE",
             fake_qq::group_message("G42", "M1", "remember us"));
  REQUIRE(t.next_inbound());
  CHECK(t.deliver(reply("qq", "G42", "noted")) == "");
  auto file = t.dir.path + "/qq/qq-groups.json";
  REQUIRE(std::filesystem::exists(file));
  std::ifstream in{file};
  CHECK(json::parse(in)["groups"] == json::array({"G42"}));

  // A new adapter has seen no message from G42: the file tells it.
  t.stop();
  t.start();
  REQUIRE(t.api.wait_sessions(2, 10s));
  CHECK(t.deliver(reply("qq", "G42", "a scheduled note")) == "");
  CHECK(t.deliver(reply("qq", "U9", "to a person")) == "");
  auto posts = t.api.posts();
  REQUIRE(posts.size() == 3);
  CHECK(posts[1]["kind"] == "groups");
  CHECK(posts[1]["target"] == "G42");
  CHECK(posts[1]["content"] == "a scheduled note");
  CHECK(posts[2]["kind"] == "users");
}
