// Mochat without a network: the Socket.IO / Engine.IO packets on their exact
// strings, the config keys, the events read, and the reply-delay buffer.
#include <doctest/doctest.h>

#include "actors/channels/mochat/mochat_api.hpp"
#include "actors/channels/mochat/mochat_config.hpp"
#include "actors/channels/mochat/mochat_event.hpp"
#include "actors/channels/mochat/mochat_sorter.hpp"
#include "actors/channels/mochat/socketio_packet.hpp"

using namespace nb;
using namespace nb::mochat;
using nlohmann::json;

TEST_CASE("engine.io packets read by their type digit") {
  std::string why;
  auto open = sio::read_eio(
    R"(0{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000})",
    why);
  REQUIRE(open);
  CHECK(open->type == sio::eio_type::open);
  auto hs = sio::read_handshake(open->data, why);
  REQUIRE(hs);
  CHECK(hs->sid == "lv_VI97HAXpY6yYWAAAC");
  CHECK(hs->ping_interval_ms == 25000);
  CHECK(hs->ping_timeout_ms == 20000);
  CHECK(hs->max_payload == 1000000);
  CHECK(sio::read_eio("2", why)->type == sio::eio_type::ping);
  CHECK(sio::read_eio("2probe", why)->data == "probe");
  CHECK(sio::read_eio("3", why)->type == sio::eio_type::pong);
  CHECK(sio::read_eio("6", why)->type == sio::eio_type::noop);
  CHECK_FALSE(sio::read_eio("", why));
  CHECK_FALSE(sio::read_eio("9", why));
  CHECK(why.find("unknown Engine.IO packet type") == 0);
  CHECK_FALSE(sio::read_eio("b4AAEC", why)); // binary payload (base64)
  CHECK_FALSE(sio::read_handshake(R"({"pingInterval":1})", why));
  CHECK(why == "open packet has no sid");
  CHECK_FALSE(sio::read_handshake(R"({"sid":"x","pingTimeout":-5})", why));
  CHECK_FALSE(sio::read_handshake("[]", why));
}

TEST_CASE("socket.io packets read from their exact text") {
  std::string why;
  auto c = sio::read_sio("0", why);
  REQUIRE(c);
  CHECK(c->type == sio::sio_type::connect);
  CHECK(c->nsp == "/");
  CHECK(c->data.is_null());
  auto c2 = sio::read_sio(R"(0{"sid":"oSO0OpakMV_3jnilAAAA"})", why);
  REQUIRE(c2);
  CHECK(c2->data["sid"] == "oSO0OpakMV_3jnilAAAA");
  auto admin = sio::read_sio(R"(0/admin,{"sid":"x"})", why);
  REQUIRE(admin);
  CHECK(admin->nsp == "/admin");
  CHECK(sio::read_sio("0/admin", why)->nsp == "/admin");

  auto ev =
    sio::read_sio(R"(2["claw.session.events",{"sessionId":"s1"}])", why);
  REQUIRE(ev);
  CHECK(sio::event_name(*ev) == "claw.session.events");
  CHECK(sio::first_arg(*ev)["sessionId"] == "s1");
  CHECK_FALSE(ev->id);
  auto ev12 = sio::read_sio(R"(212["notify:chat.message.add",{}])", why);
  REQUIRE(ev12);
  CHECK(ev12->id == 12);
  auto nsp_ev = sio::read_sio(R"(2/chat,7["hi"])", why);
  REQUIRE(nsp_ev);
  CHECK(nsp_ev->nsp == "/chat");
  CHECK(nsp_ev->id == 7);
  CHECK(sio::first_arg(*nsp_ev).is_null());

  auto ack = sio::read_sio(R"(30[{"result":true,"data":[]}])", why);
  REQUIRE(ack);
  CHECK(ack->type == sio::sio_type::ack);
  CHECK(ack->id == 0);
  CHECK(sio::first_arg(*ack)["result"] == true);
  auto err = sio::read_sio(R"(4{"message":"Not authorized"})", why);
  REQUIRE(err);
  CHECK(err->type == sio::sio_type::connect_error);
  CHECK(sio::read_sio("1", why)->type == sio::sio_type::disconnect);

  for (const char* bad :
       {"", "9", "2", "2{", "2[1]", "2[]", "2{\"a\":1}", "3[]", "31{}", "0[1]",
        "1{}", "4[1]", R"(51-["ev",{"_placeholder":true,"num":0}])",
        "2/chat[\"x\"]", "21234567890123456[\"x\"]"}) {
    CAPTURE(bad);
    CHECK_FALSE(sio::read_sio(bad, why));
    CHECK_FALSE(why.empty());
  }
}

TEST_CASE("socket.io frames written as the server expects them") {
  CHECK(sio::connect_frame("/", json{{"token", "t0k"}})
        == R"(40{"token":"t0k"})");
  CHECK(sio::connect_frame("/admin", json{{"token", "t"}})
        == R"(40/admin,{"token":"t"})");
  CHECK(sio::event_frame("/", "com.claw.im.subscribePanels",
                         json::array({{{"panelIds", json::array()}}}), 3)
        == R"(423["com.claw.im.subscribePanels",{"panelIds":[]}])");
  CHECK(sio::event_frame("/", "hello", json::array()) == R"(42["hello"])");
  CHECK(sio::ack_frame("/", 7) == "437[]");
  CHECK(sio::ack_frame("/chat", 7, json::array({true})) == "43/chat,7[true]");
  CHECK(std::string{sio::pong_frame} == "3");
  // What is written reads back the same.
  std::string why;
  sio::sio_packet p{sio::sio_type::event, "/x", 42,
                    json::array({"ev", {{"k", "ü"}}})};
  auto back = sio::read_sio(sio::write_sio(p), why);
  REQUIRE(back);
  CHECK(back->nsp == "/x");
  CHECK(back->id == 42);
  CHECK(back->data == p.data);
}

TEST_CASE("socket.io websocket url from the base url and path") {
  std::string why;
  CHECK(sio::websocket_url("https://mochat.io", "/socket.io", why)
        == "wss://mochat.io/socket.io/?EIO=4&transport=websocket");
  CHECK(sio::websocket_url("http://127.0.0.1:8080/api/", "socket.io/", why)
        == "ws://127.0.0.1:8080/socket.io/?EIO=4&transport=websocket");
  CHECK(sio::websocket_url("ftp://x", "/socket.io", why).empty());
  CHECK(sio::websocket_url("https://", "/socket.io", why).empty());
}

TEST_CASE("mochat config takes the original's keys and names bad ones") {
  std::string error;
  auto c =
    parse_mochat_config("mochat",
                        json{{"clawToken", "tok"},
                             {"agentUserId", " agent-1 "},
                             {"sessions", {"*", "session_b", "session_a", ""}},
                             {"panels", {"p1"}},
                             {"mention", {{"requireInGroups", true}}},
                             {"groups",
                              {{"g1", {{"requireMention", false}}},
                               {"*", {{"require_mention", true}}}}},
                             {"reply_delay_mode", "off"}}
                          .dump(),
                        error);
  CHECK(error == "");
  CHECK(c.base_url == "https://mochat.io");
  CHECK(c.socket_path == "/socket.io");
  CHECK(c.reconnect_delay_ms == 1000);
  CHECK(c.max_reconnect_delay_ms == 10000);
  CHECK(c.agent_user_id == "agent-1");
  CHECK(c.all_sessions);
  CHECK(c.sessions == std::vector<std::string>{"session_a", "session_b"});
  CHECK_FALSE(c.all_panels);
  CHECK(c.reply_delay_mode == "off");
  CHECK(c.reply_delay_ms == 120000);
  CHECK_FALSE(requires_mention(c, "p1", "g1"));
  CHECK(requires_mention(c, "p1", "g2")); // "*"
  c.group_mention.erase("*");
  CHECK(requires_mention(c, "p1", "g2")); // mention.requireInGroups
  c.group_mention["p1"] = false;
  CHECK_FALSE(requires_mention(c, "p1", "g2"));

  parse_mochat_config("mochat", json::object().dump(), error);
  CHECK(error.find("channels.mochat.clawToken: missing") == 0);
  parse_mochat_config("mochat",
                      json{{"clawToken", "t"},
                           {"baseUrl", "mochat.io"},
                           {"mention", {{"requireInGroups", "yes"}}},
                           {"groups", {{"g", {{"requireMention", 1}}}}},
                           {"replyDelayMode", "sometimes"}}
                        .dump(),
                      error);
  CHECK(error.find("channels.mochat.baseUrl") != std::string::npos);
  CHECK(error.find("channels.mochat.mention.requireInGroups")
        != std::string::npos);
  CHECK(error.find("channels.mochat.groups.g.requireMention")
        != std::string::npos);
  CHECK(error.find("channels.mochat.replyDelayMode") != std::string::npos);
}

TEST_CASE("mochat mentions follow the original's rules") {
  CHECK(mentions_agent(json{{"meta", {{"mentioned", true}}}}, ""));
  CHECK(mentions_agent(json{{"meta", {{"wasMentioned", true}}}}, "a1"));
  CHECK(mentions_agent(json{{"meta", {{"mentionIds", {"x", "a1"}}}}}, "a1"));
  CHECK(mentions_agent(
    json{{"meta", {{"mentionedUsers", {{{"userId", "a1"}}}}}}}, "a1"));
  CHECK(mentions_agent(json{{"content", "hi <@a1> there"}}, "a1"));
  CHECK(mentions_agent(json{{"content", "hi @a1"}}, "a1"));
  CHECK_FALSE(mentions_agent(json{{"content", "hi @a1"}}, ""));
  CHECK_FALSE(mentions_agent(
    json{{"meta", {{"mentions", {"a2"}}}}, {"content", "hello"}}, "a1"));
  CHECK(content_text(json{{"text", "x"}}) == R"({"text":"x"})");
  CHECK(content_text(json{"  hi  "}[0]) == "hi");
}

TEST_CASE("mochat message.add becomes an inbound message") {
  mochat_config cfg;
  cfg.agent_user_id = "agent-1";
  cfg.require_in_groups = true;
  json ev{{"type", "message.add"},
          {"timestamp", "2026-12-03T08:00:00Z"},
          {"payload",
           {{"messageId", "m1"},
            {"author", "u1"},
            {"content", " hello "},
            {"groupId", "g1"},
            {"authorInfo", {{"nickname", "Ann"}}},
            {"meta", {{"mentions", {"agent-1"}}}}}}};
  std::string why;
  auto m = read_message_add(cfg, "panel-1", target_kind::panel, ev, why);
  REQUIRE(m);
  CHECK(m->msg.channel == "mochat");
  CHECK(m->msg.sender_id == "u1");
  CHECK(m->msg.chat_id == "panel-1");
  CHECK(m->msg.content == "hello");
  CHECK(m->mentioned);
  CHECK(m->needs_mention);
  auto meta = json::parse(m->msg.metadata_json);
  CHECK(meta["_message_id"] == "m1");
  CHECK(meta["_is_group"] == true);
  CHECK(meta["group_id"] == "g1");
  CHECK(meta["sender_name"] == "Ann");
  CHECK(meta["target_kind"] == "panel");

  ev["payload"]["author"] = "agent-1";
  CHECK_FALSE(read_message_add(cfg, "p", target_kind::panel, ev, why));
  CHECK(why == "the agent's own message");
  ev["payload"].erase("author");
  CHECK_FALSE(read_message_add(cfg, "p", target_kind::panel, ev, why));
  CHECK(why.find("malformed") == 0);
  CHECK_FALSE(read_message_add(cfg, "p", target_kind::panel,
                               json{{"type", "message.add"}}, why));
  CHECK_FALSE(read_message_add(cfg, "p", target_kind::panel,
                               json{{"type", "message.recall"}}, why));
}

TEST_CASE("mochat notify events and reply targets") {
  auto n = read_notify_message(json{{"_id", "m9"},
                                    {"groupId", "g"},
                                    {"converseId", "p"},
                                    {"author", "u"},
                                    {"content", "yo"}});
  REQUIRE(n);
  CHECK(n->first == "p");
  CHECK(n->second["payload"]["messageId"] == "m9");
  CHECK_FALSE(read_notify_message(json{{"converseId", "p"}}));
  auto in = read_inbox_append(json{{"type", "message"},
                                   {"payload",
                                    {{"converseId", "c1"},
                                     {"messageId", "m2"},
                                     {"messageAuthor", "u"},
                                     {"messagePlainContent", "hey"}}}});
  REQUIRE(in);
  CHECK(in->first == "c1");
  CHECK(in->second["payload"]["content"] == "hey");
  CHECK_FALSE(read_inbox_append(json{{"type", "friend"}}));
  CHECK_FALSE(read_inbox_append(json{{"type", "message"}})); // no payload

  CHECK(resolve_target("session_abc").id == "session_abc");
  CHECK_FALSE(resolve_target("session_abc").is_panel);
  CHECK(resolve_target("panel-1").is_panel);
  CHECK(resolve_target("mochat:session_x").id == "session_x");
  CHECK_FALSE(resolve_target("mochat:session_x").is_panel);
  CHECK(resolve_target("group:session_x").is_panel);
  CHECK(resolve_target("  ").id.empty());
  auto [path, body] = send_request("panel-1", "hi", "g1", "");
  CHECK(path == "/api/claw/groups/panels/send");
  CHECK(body
        == json{{"panelId", "panel-1"}, {"content", "hi"}, {"groupId", "g1"}});
  auto [spath, sbody] = send_request("session_a", "yo", "", "m1");
  CHECK(spath == "/api/claw/sessions/send");
  CHECK(
    sbody
    == json{{"sessionId", "session_a"}, {"content", "yo"}, {"replyTo", "m1"}});
}

namespace {

message_add panel_msg(const mochat_config& cfg, const std::string& id,
                      const std::string& text, bool mention) {
  json meta = json::object();
  if (mention)
    meta["mentioned"] = true;
  json ev{{"type", "message.add"},
          {"payload",
           {{"messageId", id},
            {"author", "u1"},
            {"content", text},
            {"groupId", "g1"},
            {"authorInfo", {{"nickname", "Ann"}}},
            {"meta", meta}}}};
  std::string why;
  return *read_message_add(cfg, "p1", target_kind::panel, ev, why);
}

} // namespace

TEST_CASE(
  "mochat reply delay holds unmentioned panel messages and their acks") {
  mochat_config cfg;
  cfg.reply_delay_ms = 1000;
  sorter s{cfg};
  auto t0 = sorter::clock::now();
  ready_batch out;
  CHECK(s.take("p1", target_kind::panel, panel_msg(cfg, "m1", "one", false), 1,
               t0, out));
  CHECK(s.take("p1", target_kind::panel, panel_msg(cfg, "m2", "two", false), 2,
               t0, out));
  CHECK(out.msgs.empty());
  CHECK(s.waiting() == 2);
  // Sent again after a reconnect while it waits: one entry, a fresh ack.
  s.forget_acks();
  CHECK(s.take("p1", target_kind::panel, panel_msg(cfg, "m1", "one", false), 5,
               t0, out));
  CHECK(s.waiting() == 2);
  CHECK(s.take("p1", target_kind::panel, panel_msg(cfg, "m3", "you?", true), 6,
               t0, out));
  REQUIRE(out.msgs.size() == 1);
  CHECK(out.msgs[0].content == "Ann: one\nAnn: two\nAnn: you?");
  auto meta = json::parse(out.msgs[0].metadata_json);
  CHECK(meta["buffered_count"] == 3);
  CHECK(meta["_mentioned"] == true);
  CHECK(out.acks == std::vector<int64_t>{5, 6});
  s.remember(out.keys);
  ready_batch again;
  CHECK_FALSE(s.take("p1", target_kind::panel,
                     panel_msg(cfg, "m2", "two", false), 7, t0, again));
  CHECK(again.msgs.empty());

  // Alone once the time is up.
  ready_batch late;
  s.take("p1", target_kind::panel, panel_msg(cfg, "m4", "later", false), 8, t0,
         late);
  REQUIRE(s.next_due());
  s.due(t0 + std::chrono::milliseconds(999), late);
  CHECK(late.msgs.empty());
  s.due(t0 + std::chrono::milliseconds(1000), late);
  REQUIRE(late.msgs.size() == 1);
  CHECK(late.msgs[0].content == "later");
  CHECK(late.acks == std::vector<int64_t>{8});
  CHECK_FALSE(s.next_due());
}

TEST_CASE("mochat without reply delay drops unmentioned group messages") {
  mochat_config cfg;
  cfg.reply_delay_mode = "off";
  cfg.require_in_groups = true;
  sorter s{cfg};
  ready_batch out;
  auto now = sorter::clock::now();
  CHECK_FALSE(s.take("p1", target_kind::panel,
                     panel_msg(cfg, "m1", "chat", false), 1, now, out));
  CHECK(out.msgs.empty());
  CHECK_FALSE(s.take("p1", target_kind::panel,
                     panel_msg(cfg, "m2", "to you", true), 2, now, out));
  REQUIRE(out.msgs.size() == 1);
  CHECK(out.keys == std::vector<std::string>{"panel:p1:m2"});
}
