// channels: the shared keys, and each channels.<name> object kept verbatim.
#include "tests/config/helpers.hpp"

#include <nlohmann/json.hpp>

using namespace nb;
using namespace nb::test;

TEST_CASE("channel objects are kept verbatim with their enabled flag") {
  auto l = ok(parse(R"({"channels": {
      "sendProgress": false, "send_tool_hints": false, "sendMaxRetries": 5,
      "telegram": {"enabled": true, "token": "${TG}", "allowFrom": ["42"]},
      "myBridge": {"url": "ws://x", "nested": {"k": [1, "${UNSET}"]}}}})",
                    {{"TG", "123:abc"}}));
  const auto& s = l.value;
  CHECK_FALSE(s.channels_common.send_progress);
  CHECK_FALSE(s.channels_common.send_tool_hints);
  CHECK(s.channels_common.show_reasoning);
  CHECK(s.channels_common.send_max_retries == 5);
  REQUIRE(s.channels.size() == 2);
  const auto& tg = s.channels.at("telegram");
  CHECK(tg.enabled);
  auto tg_json = nlohmann::json::parse(tg.raw_json);
  CHECK(tg_json["token"] == "123:abc"); // enabled: interpolated
  CHECK(tg_json["allowFrom"][0] == "42");
  const auto& bridge = s.channels.at("myBridge"); // name kept as written
  CHECK_FALSE(bridge.enabled);
  auto bridge_json = nlohmann::json::parse(bridge.raw_json);
  CHECK(bridge_json["nested"]["k"][1] == "${UNSET}"); // disabled: untouched
  CHECK(l.warnings.empty());
}

TEST_CASE("channel defaults apply without a channels section") {
  auto l = ok(parse("{}"));
  CHECK(l.value.channels.empty());
  CHECK(l.value.channels_common.send_progress);
  CHECK(l.value.channels_common.send_max_retries == 3);
}

TEST_CASE("bad channel values name their key") {
  auto e = err(parse(R"({"channels": {"slack": {"enabled": "yes"}}})"));
  CHECK(e.key_path == "channels.slack.enabled");
  CHECK(contains(e.reason, "boolean"));

  e = err(parse(R"({"channels": {"slack": ["x"]}})"));
  CHECK(e.key_path == "channels.slack");
  CHECK(contains(e.reason, "expected an object"));

  e = err(parse(R"({"channels": {"sendMaxRetries": 11}})"));
  CHECK(e.key_path == "channels.sendMaxRetries");

  e = err(parse(R"({"channels": {"discord": {"enabled": true,
                     "token": "${DISCORD_TOKEN}"}}})"));
  CHECK(e.key_path == "channels.discord.token");
  CHECK(contains(e.reason, "DISCORD_TOKEN"));

  e = err(parse(R"({"channels": "on"})"));
  CHECK(e.key_path == "channels");
}
