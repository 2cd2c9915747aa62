// Two agents bound to two Telegram chats, end to end: the real gateway
// executable polls a scripted Bot API server on 127.0.0.1; each chat's
// message reaches its own agent (model, workspace, session file) and the
// answer goes back to the chat it came from.
#include <doctest/doctest.h>

#include <chrono>
#include <map>

#include "tests/integration/gateway_home.hpp"
#include "tests/platforms/fake_telegram.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("two agents bound to two Telegram chats answer each their own") {
  fake_llm llm;
  // The answer names the model asked, so each reply shows who made it.
  llm.set_responder([](const json& body) {
    return text("answer from " + body.value("model", std::string{"?"}));
  });
  fake_telegram tg;
  temp_home dirs;
  auto ws = [&](const char* name) { return (dirs.dir / name).string(); };
  json extra{
    {"agents",
     {{"list",
       {{{"id", "work"}, {"model", "work-model"}, {"workspace", ws("work")}},
        {{"id", "family"}, {"model", "family-model"},
         {"workspace", ws("family")}}}},
      {"bindings",
       {{{"agent", "work"}, {"channel", "telegram"}, {"chatId", "100"}},
        {{"agent", "family"}, {"channel", "telegram"}, {"chatId", "200"}}}}}},
    {"channels",
     {{"telegram",
       {{"enabled", true}, {"token", "123:ABC"}, {"apiBase", tg.base_url()},
        {"allowFrom", {"*"}}, {"streaming", false}, {"pollTimeout", 1}}}}}};
  home_with_config h{custom_provider(llm), extra};
  auto gw = h.start_gateway();
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(20)));
  tg.push_text(100, 7, "a question for work");
  tg.push_text(200, 8, "a question for the family");
  tg.push_text(300, 9, "nobody bound this chat");
  INFO(gw.err());
  REQUIRE(tg.wait_sent(3, std::chrono::seconds(30)));
  std::map<std::string, std::string> reply_to_chat;
  for (auto& s : tg.sent()) {
    INFO(s.dump());
    auto& chat = s["chat_id"];
    reply_to_chat[chat.is_string() ? chat.get<std::string>() : chat.dump()] =
      s.value("text", "");
  }
  CHECK(reply_to_chat["100"].find("work-model") != std::string::npos);
  CHECK(reply_to_chat["200"].find("family-model") != std::string::npos);
  // No binding: main, with the default model.
  CHECK(reply_to_chat["300"].find("test-model") != std::string::npos);
  // Each request carried its own agent's workspace in the system prompt.
  for (auto& r : llm.requests()) {
    auto model = r.body.value("model", std::string{});
    auto system = r.body["messages"][0]["content"].get<std::string>();
    if (model == "work-model")
      CHECK(system.find(ws("work")) != std::string::npos);
    if (model == "family-model")
      CHECK(system.find(ws("family")) != std::string::npos);
  }
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(30)) == 0);
  // The session files: agent-prefixed keys, main's unchanged.
  auto cfg = h.loaded();
  CHECK_FALSE(session_messages(cfg, "work:telegram:100").empty());
  CHECK_FALSE(session_messages(cfg, "family:telegram:200").empty());
  CHECK_FALSE(session_messages(cfg, "telegram:300").empty());
  CHECK(session_messages(cfg, "telegram:100").empty());
}
