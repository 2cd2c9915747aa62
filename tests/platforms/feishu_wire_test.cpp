// Feishu's pieces that need no server: pbbp2 frames against bytes made by
// protoc 3.21 (`protoc --encode=pbbp2.Frame` with lark-oapi's pbbp2.proto),
// fragment joining, event parsing, rendering, the token's lifetime.
#include <doctest/doctest.h>

#include "actors/channels/feishu/feishu_api.hpp"
#include "actors/channels/feishu/feishu_config.hpp"
#include "actors/channels/feishu/feishu_event.hpp"
#include "actors/channels/feishu/feishu_frame.hpp"
#include "actors/channels/feishu/feishu_sender.hpp"
#include "tests/platforms/fake_feishu.hpp"

using namespace nb;
using namespace nb::feishu;
using nlohmann::json;

namespace {

std::string unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// protoc: SeqID: 0 LogID: 0 service: 33 method: 0
//         headers { key: "type" value: "ping" }
const char* ping_hex = "08001000182120002a0c0a0474797065120470696e67";
// protoc: SeqID: 300 LogID: 1234567890123 service: 33 method: 1, headers
// type=event message_id=m-1 sum=1 seq=0 trace_id=tr-9, payload {"a":1},
// LogIDNew "log-new"
const char* data_hex
  = "08ac0210cb89ec8ff723182120012a0d0a047479706512056576656e742a110a0a6d6573"
    "736167655f696412036d2d312a080a0373756d1201312a080a037365711201302a100a08"
    "74726163655f6964120474722d3942077b2261223a317d4a076c6f672d6e6577";
// The same with a biz_rt=3 header added and payload {"code":200}.
const char* ack_hex
  = "08ac0210cb89ec8ff723182120012a0d0a047479706512056576656e742a110a0a6d6573"
    "736167655f696412036d2d312a080a0373756d1201312a080a037365711201302a100a08"
    "74726163655f6964120474722d392a0b0a0662697a5f7274120133420c7b22636f646522"
    "3a3230307d4a076c6f672d6e6577";

} // namespace

TEST_CASE("feishu frames match protoc's bytes both ways") {
  CHECK(encode(ping_frame(33)) == unhex(ping_hex));
  std::string err;
  auto f = decode(unhex(data_hex), err);
  REQUIRE(f);
  CHECK(f->seq_id == 300);
  CHECK(f->log_id == 1234567890123ull);
  CHECK(f->service == 33);
  CHECK(f->method == 1);
  CHECK(f->header("type") == "event");
  CHECK(f->header("message_id") == "m-1");
  CHECK(f->header("trace_id") == "tr-9");
  CHECK(f->payload == R"({"a":1})");
  CHECK(f->log_id_new == "log-new");
  CHECK(encode(*f) == unhex(data_hex));
  CHECK(encode(ack_frame(*f, 200, 3)) == unhex(ack_hex));
  // A negative int32 takes ten bytes, as protoc writes it.
  frame neg;
  neg.seq_id = 1;
  neg.log_id = 2;
  neg.service = -1;
  neg.method = 1;
  CHECK(encode(neg) == unhex("0801100218ffffffffffffffffff012001"));
  auto back = decode(encode(neg), err);
  REQUIRE(back);
  CHECK(back->service == -1);
}

TEST_CASE("feishu frame decoding refuses broken bytes") {
  std::string err;
  auto good = unhex(data_hex);
  CHECK_FALSE(decode(good.substr(0, good.size() - 3), err));
  CHECK(err == "field longer than the frame");
  CHECK_FALSE(decode("\xff\xff\xff", err));
  CHECK_FALSE(decode(unhex("0801"), err)); // LogID, service, method missing
  CHECK(err.find("required") != std::string::npos);
  CHECK_FALSE(decode(unhex("0d00000000"), err)); // SeqID as fixed32
  // Unknown fields are stepped over.
  auto with_extra = good + unhex("a00601") + unhex("aa0603616263");
  auto f = decode(with_extra, err);
  REQUIRE(f);
  CHECK(f->payload == R"({"a":1})");
  CHECK(decode("", err) == std::nullopt);
}

TEST_CASE("feishu fragments join in any order and expire") {
  fragment_joiner j{5000};
  std::string err;
  CHECK(j.add("m", 1, 0, "whole", 0, err) == "whole");
  CHECK_FALSE(j.add("m2", 3, 2, "c", 0, err));
  CHECK_FALSE(j.add("m2", 3, 0, "a", 10, err));
  CHECK(j.add("m2", 3, 1, "b", 20, err) == "abc");
  CHECK(j.pending() == 0);
  CHECK_FALSE(j.add("m3", 2, 0, "x", 0, err));
  CHECK_FALSE(j.add("m4", 2, 0, "y", 6000, err)); // m3 is dropped by now
  CHECK(j.pending() == 1);
  CHECK_FALSE(j.add("m3", 2, 1, "z", 6001, err)); // its first half is gone
  CHECK_FALSE(j.add("m5", 2, 5, "?", 6002, err));
  CHECK(err.find("out of range") != std::string::npos);
}

TEST_CASE("feishu events give session keys mentions and chat ids") {
  event_context ctx;
  ctx.bot_open_id = test::fake_feishu::bot_open_id;
  auto ev = test::fake_feishu::text_event("oc_g1", "group", "ou_ann",
                                          "deploy?", true);
  auto p = parse_event(ev, ctx);
  REQUIRE(p.msg);
  auto mid = test::fake_feishu::message_id_of(ev);
  CHECK(p.msg->content == "deploy?");
  CHECK(p.msg->chat_id == "oc_g1");
  CHECK(p.msg->sender_id == "ou_ann");
  CHECK(p.msg->session_key_override == "feishu:oc_g1:" + mid);
  auto meta = json::parse(p.msg->metadata_json);
  CHECK(meta["_is_group"] == true);
  CHECK(meta["_mentioned"] == true);
  CHECK(meta["_message_id"] == mid);

  // A reply inside a topic shares the topic's session.
  auto in_topic = test::fake_feishu::text_event("oc_g1", "group", "ou_ann",
                                                "more", false, "om_root");
  p = parse_event(in_topic, ctx);
  REQUIRE(p.msg);
  CHECK(p.msg->session_key_override == "feishu:oc_g1:om_root");
  CHECK(json::parse(p.msg->metadata_json)["_mentioned"] == false);
  ctx.topic_isolation = false;
  CHECK(parse_event(in_topic, ctx).msg->session_key_override.empty());

  // A direct chat answers to the sender's open_id.
  p = parse_event(test::fake_feishu::text_event("oc_p", "p2p", "ou_bob", "hi"),
                  ctx);
  REQUIRE(p.msg);
  CHECK(p.msg->chat_id == "ou_bob");
  CHECK(json::parse(p.msg->metadata_json)["_mentioned"] == true);

  // Other people's mentions are written out; @_user_1 is not @_user_10.
  auto other = test::fake_feishu::text_event("oc_g1", "group", "ou_ann", "");
  auto& msg = other["event"]["message"];
  msg["content"] = json{{"text", "ask @_user_1 and @_user_10"}}.dump();
  msg["mentions"] = json::array(
    {{{"key", "@_user_1"}, {"id", {{"open_id", "ou_cy"}}}, {"name", "Cy"}},
     {{"key", "@_user_10"}, {"id", {{"open_id", "ou_di"}}}, {"name", "Di"}}});
  p = parse_event(other, ctx);
  REQUIRE(p.msg);
  CHECK(p.msg->content == "ask @Cy (ou_cy) and @Di (ou_di)");

  auto from_bot = ev;
  from_bot["event"]["sender"]["sender_type"] = "bot";
  CHECK_FALSE(parse_event(from_bot, ctx).msg);
  auto read = ev;
  read["header"]["event_type"] = "im.message.message_read_v1";
  CHECK(parse_event(read, ctx).why == "event im.message.message_read_v1");
  CHECK(parse_event(json{{"uuid", "x"}}, ctx).why.rfind("malformed", 0) == 0);
  auto broken = ev;
  broken["event"]["message"].erase("chat_id");
  CHECK(parse_event(broken, ctx).why.rfind("malformed", 0) == 0);
}

TEST_CASE("feishu post image and file contents") {
  json post{{"zh_cn",
             {{"title", "Report"},
              {"content",
               json::array({json::array({{{"tag", "text"}, {"text", "see"}},
                                         {{"tag", "a"}, {"text", "link"},
                                          {"href", "http://x"}},
                                         {{"tag", "at"},
                                          {"user_name", "Ann"}}}),
                            json::array({{{"tag", "img"},
                                          {"image_key", "img_1"}}})})}}}};
  std::vector<std::string> images;
  CHECK(post_text(post, images) == "Report see link @Ann");
  CHECK(images == std::vector<std::string>{"img_1"});
  images.clear();
  CHECK(post_text(json{{"post", post}}, images) == "Report see link @Ann");

  event_context ctx;
  auto ev = test::fake_feishu::text_event("oc_p", "p2p", "ou_bob", "");
  ev["event"]["message"]["message_type"] = "file";
  ev["event"]["message"]["content"]
    = json{{"file_key", "file_v2_1"}, {"file_name", "../../etc/passwd"}}.dump();
  auto p = parse_event(ev, ctx);
  REQUIRE(p.msg);
  REQUIRE(p.media.size() == 1);
  CHECK(p.media[0].kind == "file");
  CHECK(p.media[0].key == "file_v2_1");
  CHECK(p.media[0].file_name == "../../etc/passwd"); // made safe on saving
}

TEST_CASE("feishu replies render as text or a markdown card") {
  auto plain = render("All good");
  CHECK(plain.first == "text");
  CHECK(json::parse(plain.second)["text"] == "All good");
  auto card = render("## Status\n- **green**");
  CHECK(card.first == "interactive");
  auto c = json::parse(card.second);
  CHECK(c["elements"][0]["tag"] == "markdown");
  CHECK(c["elements"][0]["content"] == "## Status\n- **green**");
}

TEST_CASE("feishu tenant token is refreshed before it expires") {
  token_cache t;
  CHECK_FALSE(t.fresh(0));
  t.store("t-1", 7200, 1000);
  CHECK(t.fresh(1000 + 6899 * 1000));
  CHECK_FALSE(t.fresh(1000 + 6900 * 1000)); // five minutes before the end
  t.store("t-2", 60, 0); // a short life: refreshed at half of it
  CHECK(t.fresh(29000));
  CHECK_FALSE(t.fresh(30000));
  t.drop();
  CHECK_FALSE(t.fresh(0));
}

TEST_CASE("feishu domain picks the default api base") {
  std::string err;
  auto c = parse_feishu_config("feishu", R"({"appId":"cli_1","appSecret":"s"})",
                               "/tmp/m", err);
  CHECK(err.empty());
  CHECK(c.api_base == "https://open.feishu.cn");
  CHECK(c.media_dir == "/tmp/m/feishu");
  c = parse_feishu_config("lark", R"({"app_id":"cli_1","app_secret":"s",
                                      "domain":"lark","topic_isolation":false})",
                          "/tmp/m", err);
  CHECK(err.empty());
  CHECK(c.api_base == "https://open.larksuite.com");
  CHECK_FALSE(c.topic_isolation);
  c = parse_feishu_config("feishu", R"({"appId":"cli_1","appSecret":"s",
                                        "domain":"lark",
                                        "apiBase":"http://127.0.0.1:9/"})",
                          "/tmp/m", err);
  CHECK(c.api_base == "http://127.0.0.1:9");
  parse_feishu_config("feishu", R"({"appId":"cli_1","appSecret":"s",
                                    "instances":[{}],"reactEmoji":3})",
                      "/tmp/m", err);
  CHECK(err.find("channels.feishu.instances") != std::string::npos);
  CHECK(err.find("channels.feishu.reactEmoji: must be a string")
        != std::string::npos);
}
