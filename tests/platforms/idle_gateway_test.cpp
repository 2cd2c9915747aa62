// A gateway process with the API, the WebUI (websocket channel) and two
// Telegram bots long polling the scripted Bot API (issue 22): idle, the
// senders, the cron actor, the inbox's journal worker and CAF's aout
// printer hold no thread, and the process settles at the threads listed
// below; a cron job added then still fires, and its answer goes out
// through a sender started for it.
#include <doctest/doctest.h>

#include <csignal>
#include <ctime>
#include <map>
#include <string>

#include "actors/common/clock.hpp"
#include "actors/cron/cron_ops.hpp"
#include "tests/integration/gateway_home.hpp"
#include "tests/platforms/fake_telegram.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/proc_scan.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

std::string utc_iso_in(std::chrono::seconds d) {
  auto t = std::time(nullptr) + d.count();
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

} // namespace

TEST_CASE("an idle gateway with the API, the WebUI and two Telegram bots "
          "keeps only its loops' threads; a cron job still answers") {
  fake_telegram tg;
  fake_llm llm;
  json bot{{"enabled", true},     {"token", "123:ABC"},
           {"apiBase", tg.base_url()}, {"allowFrom", {"*"}},
           {"pollTimeout", 30}};
  auto bot2 = bot;
  bot2["type"] = "telegram";
  home_with_config h{
    custom_provider(llm),
    {{"channels", {{"websocket", {{"enabled", true}, {"port", free_port()}}},
                   {"telegram", bot},
                   {"tg2", bot2}}}}};
  child_process gw{{nanobot_binary(), "gateway", "-c", h.config},
                   h.home.dir.string(),
                   {"NANOBOT_SENDER_IDLE_S=1"}};

  // Idle from the start: no sender ran; the journal worker retires after
  // 30 s. Left: the main thread (the API's loop), CAF's scheduler workers
  // (two on two cores) and clock, the gateway HTTP server's accept loop,
  // the two long polls and the WebUI's I/O loop: eight on two cores.
  std::map<std::string, long> names;
  auto n = [&](const char* name) {
    auto it = names.find(name);
    return it == names.end() ? 0L : it->second;
  };
  auto settled = [&] {
    names = thread_names(gw.pid());
    long total = 0;
    for (auto& [name, count] : names)
      total += count;
    bool up = n("tg.telegram") == 1 && n("tg.tg2") == 1
              && n("nb.ws-io") == 1 && n("nb.http") == 1;
    return up && total <= 6 + n("caf.multiplexer")
           && n("nb.cron") + n("nb.cron-io") + n("nb.inbox")
                  + n("caf.actor")
                == 0;
  };
  bool idle = eventually(settled, 120s);
  std::string listed;
  for (auto& [name, count] : names)
    listed += name + "=" + std::to_string(count) + " ";
  INFO("threads: ", listed);
  CHECK(idle);

  // A one-shot job added meanwhile, as `nanobot cron add` adds it, answering
  // in Telegram chat 42: the cron actor (no thread of its own) still fires
  // it, and the answer goes out through a sender started for it, which
  // retires after its idle second.
  cron::job_store client{(h.home.dir / "ws" / "cron").string(),
                         cron::store_role::client};
  cron::add_request rq;
  rq.message = "water the plants";
  rq.at = utc_iso_in(3s);
  rq.session_key = "telegram:42";
  rq.channel = "telegram";
  rq.chat_id = "42";
  auto added = cron::add_job(client, rq, unix_ms());
  REQUIRE_MESSAGE(added.ok, added.text);
  REQUIRE(tg.wait_sent(1, 60s));
  auto sent = tg.sent();
  CHECK(sent[0]["chat_id"] == "42");
  CHECK(sent[0].value("text", "").find("water the plants")
        != std::string::npos);
  CHECK(eventually(
    [&] { return thread_names(gw.pid()).count("tg.send") == 0; }, 30s));
  gw.signal(SIGTERM);
  CHECK(gw.wait(30s) == 0);
}
