// The crash loop: chats with three concurrent senders each (Telegram
// groups), answers that are text or tool calls (an exclusive write_file, a
// read-only list_dir) after random delays, and the gateway killed with
// SIGKILL at random moments and restarted. Afterwards every message is in
// its chat's transcript exactly once, each sender's messages in the order
// they were sent, and every chat still answers.
//
// CI runs a short loop (3 kills, 4 chats); tests/crash/run_crash_loop.sh
// runs the full one (NB_CRASH_KILLS=50 NB_CRASH_CHATS=10).
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/fake_telegram.hpp"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <thread>

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

int env_int(const char* name, int fallback) {
  auto v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

/// The first line of the last user message's text.
std::string last_user_text(const json& body) {
  if (!body.is_object() || !body.contains("messages"))
    return {};
  auto& msgs = body["messages"];
  for (auto i = msgs.rbegin(); i != msgs.rend(); ++i) {
    if (i->value("role", "") == "tool")
      return "";
    if (i->value("role", "") == "user" && (*i)["content"].is_string()) {
      auto t = (*i)["content"].get<std::string>();
      return t.substr(0, t.find('\n'));
    }
  }
  return {};
}

/// Text, a write_file or a list_dir, each after a random short delay.
fake_response mixed_answer(const json& body) {
  thread_local std::mt19937 rng{std::random_device{}()};
  auto text = last_user_text(body);
  fake_response r;
  auto h = std::hash<std::string>{}(text);
  if (text.empty()) {
    r = nb::test::text("done with the tool");
  } else if (text.find("still there") != std::string::npos) {
    return nb::test::text("echo: " + text);
  } else if (h % 4 == 0) {
    r = tool_calls({call("w" + std::to_string(h % 100000), "write_file",
                         json{{"path", "notes/" + std::to_string(h % 7)
                                         + ".txt"},
                              {"content", text}})});
  } else if (h % 4 == 1) {
    r = tool_calls({call("l" + std::to_string(h % 100000), "list_dir",
                         json{{"path", "."}})});
  } else {
    r = nb::test::text("echo: " + text);
  }
  r.delay = std::chrono::milliseconds(rng() % 250);
  return r;
}

} // namespace

TEST_CASE("crash loop: kill -9 at random moments loses and repeats nothing") {
  const int kills = env_int("NB_CRASH_KILLS", 3);
  const int chats = env_int("NB_CRASH_CHATS", 4);
  constexpr int senders = 3;
  fake_llm llm;
  llm.set_responder(mixed_answer);
  fake_telegram tg;
  crash_home h{llm,
               json{{"channels",
                     {{"telegram",
                       {{"enabled", true},
                        {"token", "123:ABC"},
                        {"apiBase", tg.base_url()},
                        {"allowFrom", {"*"}},
                        {"groupPolicy", "open"},
                        {"streaming", false},
                        {"pollTimeout", 1}}}}}}};
  std::mutex mx;
  std::map<int64_t, std::vector<std::string>> sent_to; // chat -> texts
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int c = 0; c < chats; ++c)
    for (int s = 0; s < senders; ++s)
      threads.emplace_back([&, c, s] {
        std::mt19937 rng{static_cast<unsigned>(c * 31 + s)};
        int64_t chat = -100 - c;
        for (int n = 0; !stop.load(); ++n) {
          auto text = "chat" + std::to_string(c) + " sender" + std::to_string(s)
                      + " #" + std::to_string(n);
          {
            // The push and the record in one step: the test's order is
            // the platform's order.
            std::lock_guard<std::mutex> g{mx};
            tg.push_group(chat, 10 + s, text, false);
            sent_to[chat].push_back(text);
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(300
                                                                + rng() % 900));
        }
      });
  std::mt19937 rng{12345};
  for (int k = 0; k < kills; ++k) {
    auto gw = h.start_ready();
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng() % 1700));
    gw.signal(SIGKILL);
    REQUIRE(gw.wait(std::chrono::seconds(10)) == 128 + SIGKILL);
  }
  stop = true;
  for (auto& t : threads)
    t.join();
  // The last start: everything still owed runs now.
  auto gw = h.start_ready();
  auto all_stored = [&] {
    for (auto& [chat, texts] : sent_to) {
      auto stored = h.user_texts("telegram:" + std::to_string(chat));
      for (auto& t : texts)
        if (occurrences(stored, t) == 0)
          return false;
    }
    return tg.pending() == 0;
  };
  CHECK(eventually(all_stored, std::chrono::seconds(120 + 4 * kills)));
  int total = 0;
  for (auto& [chat, texts] : sent_to) {
    auto stored = h.user_texts("telegram:" + std::to_string(chat));
    for (auto& t : texts) {
      ++total;
      CHECK_MESSAGE(occurrences(stored, t) == 1, t);
    }
    // Each sender's messages in the order they were sent.
    for (int s = 0; s < senders; ++s) {
      auto tag = " sender" + std::to_string(s) + " #";
      std::vector<std::string> mine_sent, mine_stored;
      for (auto& t : texts)
        if (t.find(tag) != std::string::npos)
          mine_sent.push_back(t);
      for (auto& t : stored)
        if (t.find(tag) != std::string::npos
            && occurrences(mine_sent, t) > 0)
          mine_stored.push_back(t);
      CHECK(mine_stored == mine_sent);
    }
  }
  MESSAGE("crash loop: " << kills << " kills, " << total << " messages in "
                         << chats << " chats");
  // Every chat still answers.
  auto before = tg.sent().size();
  for (auto& [chat, texts] : sent_to)
    tg.push_group(chat, 10, "are you still there?", false);
  CHECK(eventually(
    [&] {
      std::map<std::string, bool> answered;
      auto sent = tg.sent();
      for (size_t i = before; i < sent.size(); ++i)
        if (sent[i]["text"].get<std::string>().find("are you still there?")
            != std::string::npos)
          answered[sent[i]["chat_id"].dump()] = true;
      return answered.size() == sent_to.size();
    },
    std::chrono::seconds(60)));
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(30)) == 0);
}
