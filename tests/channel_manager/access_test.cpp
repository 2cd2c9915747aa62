// The access matrix: allowFrom, pairing mode, group mention policy.
#include <doctest/doctest.h>

#include "actors/channels/manager/access.hpp"

using namespace nb;

namespace {

settings with_channel(const std::string& name, const std::string& raw) {
  settings s;
  s.channels[name] = channel_settings{true, raw};
  return s;
}

channel_options opts_of(const std::string& name, const std::string& raw) {
  auto r = parse_channel_options(with_channel(name, raw), name);
  if (auto* e = std::get_if<std::string>(&r))
    FAIL("unexpected error: " << *e);
  return std::get<channel_options>(r);
}

inbound_msg from(const std::string& sender, bool group = false,
                 bool mentioned = false) {
  inbound_msg m;
  m.channel = "telegram";
  m.sender_id = sender;
  m.chat_id = group ? "g1" : sender;
  m.metadata_json = std::string{"{\"_is_group\":"} + (group ? "true" : "false")
                    + ",\"_mentioned\":" + (mentioned ? "true" : "false") + "}";
  return m;
}

} // namespace

TEST_CASE("allowFrom star exact ids and the empty list") {
  pairing_book none;
  auto star = opts_of("telegram", R"({"allowFrom": ["*"]})");
  CHECK(check_access(star, none, from("anyone")) == access_verdict::allow);
  auto exact = opts_of("telegram", R"({"allowFrom": ["42", 7]})");
  CHECK(check_access(exact, none, from("42")) == access_verdict::allow);
  CHECK(check_access(exact, none, from("7")) == access_verdict::allow);
  CHECK(check_access(exact, none, from("420")) == access_verdict::deny);
  CHECK(check_access(exact, none, from("4")) == access_verdict::deny);
  auto empty = opts_of("telegram", R"({"allowFrom": []})");
  CHECK(check_access(empty, none, from("42")) == access_verdict::deny);
}

TEST_CASE("without allowFrom unknown direct senders pair and approved ones pass") {
  auto open = opts_of("telegram", R"({"token": "x"})");
  pairing_book book;
  CHECK(check_access(open, book, from("42")) == access_verdict::pair);
  CHECK(check_access(open, book, from("42", true, true))
        == access_verdict::deny); // no codes in groups
  std::mt19937_64 rng{1};
  auto code = book.request("telegram", "42", "42", 1000, rng).code;
  REQUIRE(book.approve(code, 1001));
  CHECK(check_access(open, book, from("42")) == access_verdict::allow);
  CHECK(check_access(open, book, from("43")) == access_verdict::pair);
}

TEST_CASE("groups answer only when mentioned unless groupPolicy is open") {
  pairing_book none;
  auto mention = opts_of("telegram", R"({"allowFrom": ["*"]})");
  CHECK(check_access(mention, none, from("1", true, false))
        == access_verdict::skip_group);
  CHECK(check_access(mention, none, from("1", true, true))
        == access_verdict::allow);
  auto open = opts_of("telegram", R"({"allowFrom": ["*"], "groupPolicy": "open"})");
  CHECK(check_access(open, none, from("1", true, false)) == access_verdict::allow);
  auto listed = opts_of("telegram", R"({"allowFrom": ["1"], "groupPolicy": "open"})");
  CHECK(check_access(listed, none, from("2", true, true)) == access_verdict::deny);
  auto allowlist = opts_of("telegram", R"({"allowFrom": ["*"],
      "groupPolicy": "allowlist", "groupAllowFrom": ["g1"]})");
  CHECK(check_access(allowlist, none, from("1", true)) == access_verdict::allow);
  auto other = from("1", true);
  other.chat_id = "g2";
  CHECK(check_access(allowlist, none, other) == access_verdict::skip_group);
}

TEST_CASE("channel defaults and bad option values") {
  auto ws = parse_channel_options(settings{}, "websocket");
  REQUIRE(std::holds_alternative<channel_options>(ws));
  CHECK(std::get<channel_options>(ws).allow_from
        == std::vector<std::string>{"*"}); // local WebUI: everyone by default
  auto bad = parse_channel_options(
    with_channel("slack", R"({"groupPolicy": "sometimes"})"), "slack");
  REQUIRE(std::holds_alternative<std::string>(bad));
  CHECK(std::get<std::string>(bad).find("channels.slack.groupPolicy")
        != std::string::npos);
  bad = parse_channel_options(with_channel("slack", R"({"allowFrom": "*"})"),
                              "slack");
  REQUIRE(std::holds_alternative<std::string>(bad));
  CHECK(std::get<std::string>(bad).find("channels.slack.allowFrom")
        != std::string::npos);
  settings quiet = with_channel("discord", R"({"send_tool_hints": false})");
  quiet.channels_common.send_progress = true;
  auto o = std::get<channel_options>(parse_channel_options(quiet, "discord"));
  CHECK(o.send_progress);
  CHECK_FALSE(o.send_tool_hints);
  CHECK(o.max_chars == 2000);
}
