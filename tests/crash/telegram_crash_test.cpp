// Telegram: getUpdates with offset confirmation. The offset moves only once
// the inbox journal has the message.
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/fake_telegram.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

constexpr int64_t chat = 4242;

json telegram_channel(const fake_telegram& tg) {
  return {{"channels",
           {{"telegram",
             {{"enabled", true},
              {"token", "123:ABC"},
              {"apiBase", tg.base_url()},
              {"allowFrom", {"*"}},
              {"streaming", false},
              {"pollTimeout", 1}}}}}};
}

platform_driver drive(fake_telegram& tg) {
  platform_driver p;
  p.send = [&tg](const std::string& text) { tg.push_text(chat, 7, text); };
  p.all_acknowledged = [&tg] { return tg.pending() == 0; };
  p.session_key = "telegram:" + std::to_string(chat);
  return p;
}

} // namespace

TEST_CASE("crash: telegram keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  fake_telegram tg;
  crash_home h{llm, telegram_channel(tg)};
  auto p = drive(tg);
  slow_then_five_then_kill(h, llm, p, stop_signal);
}

TEST_CASE("crash: telegram updates sent again after kill -9 are one message each") {
  fake_llm llm;
  fake_telegram tg;
  crash_home h{llm, telegram_channel(tg)};
  auto p = drive(tg);
  // The offset never reached Telegram: every update comes again.
  p.after_kill = [&tg] { tg.forget_confirmations(); };
  slow_then_five_then_kill(h, llm, p);
}
