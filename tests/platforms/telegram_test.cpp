// The Telegram adapter against a scripted Bot API server on 127.0.0.1.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "actors/channels/kit/markdown_html.hpp"
#include "actors/channels/kit/text_split.hpp"
#include "actors/channels/telegram/telegram_channel.hpp"
#include "actors/channels/telegram/telegram_update.hpp"
#include "tests/platforms/adapter_probe.hpp"
#include "tests/platforms/fake_telegram.hpp"
#include "tests/platforms/telegram_probe.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("telegram markdown becomes telegram html") {
  using chan::markdown_to_html;
  CHECK(markdown_to_html("**bold** and *it* and ~~gone~~")
        == "<b>bold</b> and <i>it</i> and <s>gone</s>");
  CHECK(markdown_to_html("a < b & c > d") == "a &lt; b &amp; c &gt; d");
  CHECK(markdown_to_html("use `x<y>` here")
        == "use <code>x&lt;y&gt;</code> here");
  CHECK(markdown_to_html("```cpp\nint *p = **q;\n```")
        == "<pre><code>int *p = **q;</code></pre>");
  CHECK(markdown_to_html("[site](https://e.x/?a=1&b=2)")
        == "<a href=\"https://e.x/?a=1&amp;b=2\">site</a>");
  CHECK(markdown_to_html("# Title\n- one\n- two")
        == "<b>Title</b>\n• one\n• two");
  CHECK(markdown_to_html("snake_case_name and 2*3*4")
        == "snake_case_name and 2*3*4");
  CHECK(markdown_to_html("__also bold__") == "<b>also bold</b>");
}

TEST_CASE("telegram updates with a non-boolean is_bot are read") {
  // Found by fuzz_telegram: from.value("is_bot", false) threw on a string.
  auto update = nlohmann::json::parse(
    R"({"update_id":1,"message":{"message_id":5,"from":{"id":7,"is_bot":"A"},)"
    R"("chat":{"id":7,"type":"private"},"date":1,"text":"hi"}})");
  auto parsed = telegram::parse_update(update, {42, "nanobot_bot"}, "telegram");
  REQUIRE(parsed.msg);
  CHECK(parsed.msg->content == "hi");
}

TEST_CASE("telegram markdown with its own placeholder bytes renders") {
  // Found by fuzz_markdown: a \x01 in the model's text was taken for a
  // code placeholder and std::stoul threw.
  using chan::markdown_to_html;
  CHECK(markdown_to_html("a \x01p\x01 b") == "a p b");
  CHECK(markdown_to_html("`x` \x01" "0\x01 `y`")
        == "<code>x</code> 0 <code>y</code>");
  CHECK(markdown_to_html("\x01" "99\x01") == "99");
}

TEST_CASE("text is split at natural boundaries within the limit") {
  std::string text = std::string(30, 'a') + "\n\n" + std::string(30, 'b');
  auto parts = chan::split_text(text, 40);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0] == std::string(30, 'a') + "\n\n");
  CHECK(parts[1] == std::string(30, 'b'));
  std::string utf = "ééééé"; // two bytes each: never cut in the middle
  for (auto& p : chan::split_text(utf, 3))
    CHECK(p == "é");
  CHECK(chan::split_text("", 10).empty());
  CHECK(chan::mentions("hi @Nano_Bot!", "nano_bot"));
  CHECK_FALSE(chan::mentions("hi @nano_botty", "nano_bot"));
}

TEST_CASE("telegram updates carry group mention and topic metadata") {
  telegram::bot_identity me{42, "nano_bot"};
  json group_msg = {
    {"update_id", 5},
    {"message",
     {{"message_id", 77},
      {"from", {{"id", 7}, {"is_bot", false}, {"first_name", "A"}}},
      {"chat", {{"id", -1001}, {"type", "supergroup"}, {"is_forum", true}}},
      {"message_thread_id", 12},
      {"is_topic_message", true},
      {"text", "/help@nano_bot please"}}}};
  auto p = telegram::parse_update(group_msg, me, "telegram");
  REQUIRE(p.msg);
  CHECK(p.msg->content == "/help please");
  CHECK(p.msg->chat_id == "-1001");
  CHECK(p.msg->sender_id == "7");
  CHECK(p.msg->session_key_override == "telegram:-1001:topic:12");
  auto meta = json::parse(p.msg->metadata_json);
  CHECK(meta["_is_group"] == true);
  CHECK(meta["_mentioned"] == true); // a command aimed at this bot
  CHECK(meta["_message_id"] == "77");
  group_msg["message"]["text"] = "just chatting";
  meta = json::parse(
    telegram::parse_update(group_msg, me, "telegram").msg->metadata_json);
  CHECK(meta["_mentioned"] == false);
  CHECK(telegram::topic_of(p.msg->session_key_override) == 12);

  // Replying to the bot counts as addressing it.
  group_msg["message"]["text"] = "what about this";
  group_msg["message"]["reply_to_message"] = {
    {"message_id", 70}, {"from", {{"id", 42}, {"is_bot", true}}}};
  p = telegram::parse_update(group_msg, me, "telegram");
  REQUIRE(p.msg);
  CHECK(json::parse(p.msg->metadata_json)["_mentioned"] == true);

  // Not messages, or not usable: skipped with a reason, never a crash.
  CHECK_FALSE(telegram::parse_update(json{{"x", 1}}, me, "telegram").update_id);
  CHECK_FALSE(telegram::parse_update(json::array(), me, "telegram").update_id);
  auto bad = telegram::parse_update(
    json{{"update_id", 9}, {"message", {{"text", "no chat"}}}}, me, "telegram");
  CHECK(bad.update_id == 9);
  CHECK_FALSE(bad.msg);
  CHECK(bad.skipped == "message without a chat");
}

TEST_CASE("telegram round trip from getUpdates to sendMessage in html") {
  telegram_probe t;
  t.start();
  t.api.push_text(555, 555, "hello **bot**");
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->channel == "telegram");
  CHECK(in->chat_id == "555");
  CHECK(in->sender_id == "555");
  CHECK(in->content == "hello **bot**");
  CHECK(in->wants_stream);
  CHECK(t.meta(*in)["_is_group"] == false);
  CHECK(t.wait_state("connected"));
  CHECK(t.status().received == 1);

  CHECK(t.deliver(reply("telegram", "555", "Hi *there* & <you>")) == "");
  auto sent = t.api.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["method"] == "sendMessage");
  CHECK(sent[0]["chat_id"] == "555");
  CHECK(sent[0]["parse_mode"] == "HTML");
  CHECK(sent[0]["text"] == "Hi <i>there</i> &amp; &lt;you&gt;");
  CHECK(t.status().sent == 1);
}

TEST_CASE("telegram streams by editing one message") {
  telegram_probe t;
  t.start();
  CHECK(t.deliver(reply("telegram", "9", "Hel", outbound_kind::delta, "s1"))
        == "");
  CHECK(t.deliver(reply("telegram", "9", "lo **w", outbound_kind::delta, "s1"))
        == "");
  CHECK(t.deliver(reply("telegram", "9", "orld**", outbound_kind::delta, "s1"))
        == "");
  CHECK(t.deliver(reply("telegram", "9", "", outbound_kind::stream_end, "s1"))
        == "");
  auto fin = reply("telegram", "9", "Hello **world**");
  fin.metadata_json = R"({"streamed":true})";
  CHECK(t.deliver(fin) == "");
  auto sent = t.api.sent();
  REQUIRE(sent.size() >= 2);
  CHECK(sent[0]["method"] == "sendMessage");
  int sends = 0;
  for (auto& s : sent) {
    sends += s["method"] == "sendMessage";
    CHECK(s["message_id"] == sent[0]["message_id"]);
  }
  CHECK(sends == 1); // the streamed final reply is not sent again
  CHECK(sent.back()["method"] == "editMessageText");
  CHECK(sent.back()["text"] == "Hello <b>world</b>");
  CHECK(sent.back()["parse_mode"] == "HTML");
}

TEST_CASE("telegram waits out a 429 retry_after and html refusals") {
  telegram_probe t;
  t.start();
  t.api.limit_sends(1, 1);
  auto t0 = std::chrono::steady_clock::now();
  CHECK(t.deliver(reply("telegram", "1", "after the pause")) == "");
  CHECK(std::chrono::steady_clock::now() - t0 >= 900ms);
  CHECK(t.api.calls("sendMessage") == 2);
  REQUIRE(t.api.sent().size() == 1);

  t.api.refuse_html_once();
  CHECK(t.deliver(reply("telegram", "1", "**x")) == "");
  auto last = t.api.sent().back();
  CHECK(last["text"] == "**x");
  CHECK_FALSE(last.contains("parse_mode"));

  // A platform that keeps refusing: the manager hears an error.
  t.api.limit_sends(5, 1);
  auto err = t.deliver(reply("telegram", "1", "never"));
  CHECK(err.find("429") != std::string::npos);
  CHECK(t.status().failed == 1);
}

TEST_CASE("telegram survives an outage without losing or repeating") {
  telegram_probe t;
  t.start();
  t.api.push_text(1, 1, "before");
  auto a = t.next_inbound();
  REQUIRE(a);
  CHECK(a->content == "before");
  t.api.go_down();
  CHECK(t.wait_state("disconnected"));
  t.api.push_text(1, 1, "during");
  t.api.come_up();
  auto b = t.next_inbound(15s);
  REQUIRE(b);
  CHECK(b->content == "during");
  CHECK(t.wait_state("connected"));
  t.api.fail_polls(1, "502");
  t.api.push_text(1, 1, "after");
  auto c = t.next_inbound(15s);
  REQUIRE(c);
  CHECK(c->content == "after");
  CHECK_FALSE(t.next_inbound(1500ms)); // nothing twice

  // A new adapter (a restart) starts after what was handed on.
  t.stop();
  CHECK(t.api.pending() == 0);
  t.start();
  t.api.push_text(1, 1, "next life");
  auto d = t.next_inbound();
  REQUIRE(d);
  CHECK(d->content == "next life");
  CHECK_FALSE(t.next_inbound(1500ms));
}

TEST_CASE("telegram ignores malformed payloads with a warning") {
  telegram_probe t;
  t.start();
  t.api.fail_polls(1, "garbage");
  t.api.push_update({{"edited_channel_post", 1}});
  t.api.push_update({{"message", "not an object"}});
  t.api.push_update({{"message", {{"chat", {{"id", 1}}}, {"text", "no from"}}}});
  t.api.push_text(8, 8, "still fine");
  auto in = t.next_inbound(15s);
  REQUIRE(in);
  CHECK(in->content == "still fine");
  CHECK(t.wait_state("connected"));
  CHECK(t.status().received == 1);
  // The garbage was confirmed with the good update, never read again.
  auto end = std::chrono::steady_clock::now() + 5s;
  while (t.api.pending() > 0 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(20ms);
  CHECK(t.api.pending() == 0);
}

TEST_CASE("telegram photos are downloaded and attached") {
  telegram_probe t;
  t.start();
  t.api.push_photo(4, 4, "look", "JPEGBYTES");
  auto in = t.next_inbound();
  REQUIRE(in);
  REQUIRE(in->media.size() == 1);
  std::ifstream f{in->media[0], std::ios::binary};
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(ss.str() == "JPEGBYTES");
  CHECK(in->content.rfind("look\n[image: ", 0) == 0);
  CHECK(in->media[0].rfind(t.dir.path + "/media/telegram/", 0) == 0);
}

TEST_CASE("telegram forum topics are their own sessions both ways") {
  telegram_probe t;
  t.start();
  t.api.push_group(-100, 5, "in the topic", true, 33);
  auto in = t.next_inbound();
  REQUIRE(in);
  CHECK(in->session_key_override == "telegram:-100:topic:33");
  CHECK(t.meta(*in)["_is_group"] == true);
  CHECK(t.meta(*in)["_mentioned"] == true);
  auto out = reply("telegram", "-100", "answer");
  out.session_key = in->session_key_override;
  CHECK(t.deliver(out) == "");
  CHECK(t.api.sent().back()["message_thread_id"] == 33);
}

TEST_CASE("telegram config errors name the key") {
  telegram_probe t;
  auto s = channel_settings_for("telegram", json{{"apiBase", "x"}},
                                t.dir.path);
  t.adapter = telegram::make_channel(t.sys, s, "telegram", t.as_manager());
  auto st = t.status();
  CHECK(st.state == "error");
  CHECK(st.detail.find("channels.telegram.token: missing")
        != std::string::npos);
  CHECK(t.deliver(reply("telegram", "1", "x")) != "");

  auto bad_token = channel_settings_for(
    "telegram", json{{"token", "wrong"}, {"apiBase", t.api.base_url()}},
    t.dir.path);
  t.stop();
  t.adapter = telegram::make_channel(t.sys, bad_token, "telegram",
                                     t.as_manager());
  CHECK(t.wait_state("error"));
  CHECK(t.status().detail.find("Unauthorized") != std::string::npos);
}
