// The NapCat (OneBot v11) adapter against a scripted NapCat on 127.0.0.1.
#include <doctest/doctest.h>

#include <filesystem>
#include <thread>

#include "actors/channels/napcat/napcat_channel.hpp"
#include "actors/channels/napcat/napcat_config.hpp"
#include "actors/channels/napcat/napcat_event.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_napcat.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct nc : adapter_probe {
  temp_dir dir;
  fake_napcat api;

  ~nc() { stop(); }

  void start(json extra = json::object()) {
    json raw{{"enabled", true}, {"wsUrl", api.ws_url()},
             {"accessToken", "nap-token"}};
    raw.update(extra);
    adapter = napcat::make_channel(
      sys, channel_settings_for("napcat", raw, dir.path), "napcat",
      as_manager());
  }

  /// Connected and logged in (the bot's QQ number known).
  void start_logged_in(json extra = json::object()) {
    start(std::move(extra));
    REQUIRE(api.wait_connections(1, 10s));
    auto end = std::chrono::steady_clock::now() + 10s;
    while (status().detail.find("10001") == std::string::npos
           && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(20ms);
    REQUIRE(status().detail == "as nano (10001)");
  }

  json meta(const inbound_msg& m) { return json::parse(m.metadata_json); }
};

napcat::napcat_config config_of(const json& raw, std::string& error) {
  return napcat::parse_napcat_config("napcat", raw.dump(), "/tmp/m", error);
}

} // namespace

TEST_CASE("napcat config reads the group policy forms and names bad keys") {
  std::string error;
  auto c = config_of(json::object(), error);
  CHECK(error.empty());
  CHECK(c.ws_url == "ws://127.0.0.1:3001");
  CHECK(c.groups.chance == 0);
  CHECK(c.welcome_new_members);
  CHECK(c.media_dir == "/tmp/m/napcat");
  c = config_of({{"groupPolicy", 0.25},
                 {"groupPolicyOverrides", {{"5", "open"}, {"6", "mention"}}}},
                error);
  CHECK(error.empty());
  CHECK(napcat::rule_for(c, "5").chance == 1);
  CHECK(napcat::rule_for(c, "6").chance == 0);
  CHECK(napcat::rule_for(c, "7").chance == 0.25);
  config_of({{"groupPolicy", 2}}, error);
  CHECK(error.find("channels.napcat.groupPolicy: expected") == 0);
  config_of({{"group_policy_overrides", {{"9", "allowlist"}}}}, error);
  CHECK(error.find("channels.napcat.groupPolicyOverrides.9") == 0);
  config_of({{"wsUrl", "http://x"}}, error);
  CHECK(error.find("channels.napcat.wsUrl") == 0);
}

TEST_CASE("napcat segments give text mentions replies and images") {
  napcat::onebot_view view;
  view.self_id = "10001";
  std::string why;
  auto ev = fake_napcat::group_message(5, 42, "hello there", 900, true);
  ev["message"].push_back({{"type", "at"}, {"data", {{"qq", "777"}}}});
  ev["message"].push_back(
    {{"type", "image"},
     {"data", {{"url", "https://x/y.png"}, {"file", "ab.png"},
               {"file_size", "123"}}}});
  auto m = napcat::read_message(ev, view, "napcat", why);
  REQUIRE(m);
  CHECK(m->addressed);
  CHECK(m->msg.content == "Card42: hello there @777");
  CHECK(m->msg.chat_id == "group:5");
  CHECK(m->msg.sender_id == "42");
  REQUIRE(m->images.size() == 1);
  CHECK(m->images[0].size == 123);
  auto meta = json::parse(m->msg.metadata_json);
  CHECK(meta["_is_group"] == true);
  CHECK(meta["_message_id"] == "900");

  // Not addressed: only the group's rule decides.
  napcat::napcat_config cfg;
  cfg.group_overrides["6"].chance = 1;
  auto plain = napcat::read_message(
    fake_napcat::group_message(5, 42, "chat", 901), view, "napcat", why);
  REQUIRE(plain);
  CHECK_FALSE(plain->addressed);
  CHECK_FALSE(napcat::should_answer(cfg, *plain, 0.0));
  cfg.groups.chance = 0.3;
  CHECK(napcat::should_answer(cfg, *plain, 0.29));
  CHECK_FALSE(napcat::should_answer(cfg, *plain, 0.31));
  auto other = napcat::read_message(
    fake_napcat::group_message(6, 42, "chat", 902), view, "napcat", why);
  CHECK(napcat::should_answer(cfg, *other, 0.99));

  // A reply to the bot's own message addresses it.
  view.note_sent("555");
  ev = fake_napcat::group_message(5, 42, "and?", 903);
  ev["message"].push_back({{"type", "reply"}, {"data", {{"id", "555"}}}});
  CHECK(napcat::read_message(ev, view, "napcat", why)->addressed);

  auto dm = napcat::read_message(fake_napcat::private_message(42, "hi", 904),
                                 view, "napcat", why);
  REQUIRE(dm);
  CHECK(dm->msg.chat_id == "private:42");
  CHECK(dm->msg.content == "hi");
  CHECK_FALSE(napcat::read_message(json{{"message_type", "private"}}, view,
                                   "napcat", why));
}

TEST_CASE("napcat round trip answers private and group chats by echo") {
  nc t;
  t.start_logged_in();
  t.api.push(fake_napcat::private_message(42, "hello napcat", 1001));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->channel == "napcat");
  CHECK(in->chat_id == "private:42");
  CHECK(in->sender_id == "42");
  CHECK(in->content == "hello napcat");
  CHECK(t.meta(*in)["_message_id"] == "1001");
  CHECK(t.deliver(reply("napcat", "private:42", "hi back")) == "");
  auto sends = t.api.sends();
  REQUIRE(sends.size() == 1);
  CHECK(sends[0]["action"] == "send_private_msg");
  CHECK(sends[0]["user_id"] == 42);
  CHECK(sends[0]["text"] == "hi back");

  t.api.push(fake_napcat::group_message(5, 42, "what time is it", 1002, true));
  in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->chat_id == "group:5");
  CHECK(in->content == "Card42: what time is it");
  CHECK(t.meta(*in)["mentioned_self"] == true);
  CHECK(t.deliver(reply("napcat", "group:5", "noon")) == "");
  sends = t.api.sends();
  REQUIRE(sends.size() == 2);
  CHECK(sends[1]["action"] == "send_group_msg");
  CHECK(sends[1]["group_id"] == 5);
  CHECK(t.status().sent == 2);
  CHECK(t.deliver(reply("napcat", "channel:9", "where")).find("not a napcat")
        != std::string::npos);
}

TEST_CASE("napcat group policy drops what is not addressed and honours overrides") {
  nc t;
  t.start_logged_in({{"groupPolicyOverrides", {{"6", "open"}}}});
  t.api.push(fake_napcat::group_message(5, 42, "just chatting", 1101));
  t.api.push(fake_napcat::group_message(6, 42, "open group talk", 1102));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "Card42: open group talk");
  t.api.push(fake_napcat::group_message(5, 42, "now to you", 1103, true));
  in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "Card42: now to you");
  CHECK_FALSE(t.next_inbound(500ms));
}

TEST_CASE("napcat send counts only when its echo answer is ok") {
  nc t;
  t.start_logged_in();
  t.api.fail_sends(1);
  auto err = t.deliver(reply("napcat", "private:42", "first"));
  CHECK(err.find("retcode=1200") != std::string::npos);
  CHECK(t.deliver(reply("napcat", "private:42", "second")) == "");
  REQUIRE(t.api.sends().size() == 1);
  CHECK(t.api.sends()[0]["text"] == "second");
  CHECK(t.status().failed == 1);
}

TEST_CASE("napcat reconnects after a drop without losing or repeating") {
  nc t;
  t.start_logged_in();
  t.api.push(fake_napcat::private_message(42, "one", 1201));
  auto a = t.next_inbound();
  REQUIRE(a);
  CHECK(a->content == "one");

  // A send whose answer the drop swallows is not reported as delivered.
  t.api.hold_answers(true);
  std::thread cut{[&] {
    t.api.wait_held(1, 10s); // the send is in, its answer held
    t.api.drop();
  }};
  auto err = t.deliver(reply("napcat", "private:42", "lost in transit"));
  cut.join();
  CHECK(err.find("connection lost") != std::string::npos);
  t.api.hold_answers(false);

  // Sent while the line was down, and sent once more after it (same id).
  t.api.resend_last_on_reconnect(true);
  t.api.push(fake_napcat::private_message(42, "two", 1202));
  REQUIRE(t.api.wait_connections(2, 15s));
  auto b = t.next_inbound(10s);
  REQUIRE(b);
  CHECK(b->content == "two");
  CHECK_FALSE(t.next_inbound(1s));
  CHECK(t.wait_state("connected"));
  CHECK(t.deliver(reply("napcat", "private:42", "after")) == "");
  REQUIRE(t.api.sends().size() == 1);
  CHECK(t.api.sends()[0]["text"] == "after");
}

TEST_CASE("napcat skips malformed frames and stays up") {
  nc t;
  t.start_logged_in();
  t.api.push_raw("{not json");
  t.api.push_raw("[1, 2, 3]");
  t.api.push_raw(R"({"post_type":"message","message_type":"group"})");
  t.api.push_raw(R"({"post_type":"message","message_type":"private","user_id":{"x":1},"message":7})");
  t.api.push_raw(R"({"post_type":"message","message_type":"private","user_id":42,"message":[1,{"type":"text","data":"x"}],"sender":"s"})");
  t.api.push_raw(R"({"echo":"nobody-asked","status":"ok","retcode":0})");
  t.api.push(fake_napcat::private_message(42, "fine", 1301));
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->content == "fine");
  CHECK(t.status().state == "connected");
  CHECK(t.api.connections() == 1);
}

TEST_CASE("napcat saves images under the media folder within the cap") {
  nc t;
  t.api.host_image("small.png", std::string(100, 'p'));
  t.api.host_image("big.png", std::string(5000, 'q'));
  t.start_logged_in({{"maxImageBytes", 1000}});
  auto ev = fake_napcat::private_message(42, "look", 1401);
  for (auto name : {"small.png", "big.png"})
    ev["message"].push_back(
      {{"type", "image"},
       {"data", {{"url", t.api.image_url(name)}, {"file", name}}}});
  t.api.push(ev);
  auto in = t.next_inbound();
  REQUIRE(in);
  REQUIRE(in->media.size() == 1);
  CHECK(in->media[0] == t.dir.path + "/media/napcat/1401_small.png");
  CHECK(std::filesystem::file_size(in->media[0]) == 100);
  CHECK(in->content.find("[image: " + in->media[0] + "]") != std::string::npos);
  CHECK(in->content.find("[image unavailable: 5000 bytes is over the limit")
        != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(t.dir.path
                                      + "/media/napcat/1401_big.png"));
}

TEST_CASE("napcat welcomes new group members") {
  nc t;
  t.start_logged_in();
  t.api.push({{"time", 1764000100}, {"self_id", fake_napcat::self_id},
              {"post_type", "notice"}, {"notice_type", "group_increase"},
              {"sub_type", "approve"}, {"group_id", 5}, {"user_id", 77},
              {"operator_id", 1}});
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->chat_id == "group:5");
  CHECK(in->content == "[group event] new member 77 joined group 5");
}

TEST_CASE("napcat with a wrong access token reports an error with the key") {
  nc t;
  t.start({{"accessToken", "wrong"}});
  CHECK(t.wait_state("error"));
  auto detail = t.status().detail;
  CHECK(detail.find("channels.napcat.accessToken") != std::string::npos);
  CHECK(detail.find("401") != std::string::npos);
  CHECK(detail.find("wrong") == std::string::npos); // never the secret
  CHECK(t.api.refused() >= 1);
  CHECK(t.api.connections() == 0);
}
