// WhatsApp, both modes. The bridge has no inbound acknowledgement: a message
// is ours once the inbox journal has it (the gauge). The Cloud API's webhook
// answers 200 only then, so Meta retries anything it did not get a 200 for.
#include "tests/crash/crash_scenario.hpp"
#include "tests/platforms/fake_whatsapp_bridge.hpp"
#include "tests/platforms/fake_whatsapp_cloud.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

constexpr const char* phone = "4915112345678";

} // namespace

TEST_CASE("crash: whatsapp bridge keeps five messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  fake_whatsapp_bridge wa;
  crash_home h{llm, {{"channels",
                      {{"whatsapp",
                        {{"enabled", true},
                         {"bridgeUrl", wa.url()},
                         {"bridgeToken", fake_whatsapp_bridge::token},
                         {"allowFrom", {phone}}}}}}}};
  int sent = 0;
  bool restarted = false; // the new process counts afresh
  platform_driver p;
  p.send = [&](const std::string& text) {
    ++sent;
    wa.push(fake_whatsapp_bridge::message("W" + std::to_string(sent), phone,
                                          text));
    // One at a time, so their order is the order they were sent in.
    auto want = sent;
    REQUIRE(eventually([&] { return h.gauge("inbox_appended") >= want; },
                       std::chrono::seconds(10)));
  };
  p.all_acknowledged = [&] {
    return restarted || h.gauge("inbox_appended") >= sent;
  };
  p.after_kill = [&] { restarted = true; };
  p.session_key = std::string{"whatsapp:"} + phone + "@s.whatsapp.net";
  slow_then_five_then_kill(h, llm, p, stop_signal);
}

TEST_CASE("crash: whatsapp cloud keeps five webhook messages queued behind a slow one") {
  auto stop_signal = stop_signal_subcase();
  fake_llm llm;
  fake_whatsapp_cloud graph;
  auto port = free_port();
  crash_home h{llm, {{"channels",
                      {{"whatsapp",
                        {{"enabled", true},
                         {"mode", "cloud"},
                         {"apiBase", graph.api_base()},
                         {"accessToken", fake_whatsapp_cloud::access_token},
                         {"phoneNumberId", fake_whatsapp_cloud::phone_number_id},
                         {"appSecret", fake_whatsapp_cloud::app_secret},
                         {"verifyToken", fake_whatsapp_cloud::verify_token},
                         {"webhookPort", port},
                         {"allowFrom", {phone}}}}}}}};
  auto hook = "http://127.0.0.1:" + std::to_string(port) + "/whatsapp/webhook";
  int sent = 0, accepted = 0;
  platform_driver p;
  p.send = [&](const std::string& text) {
    ++sent;
    auto body = fake_whatsapp_cloud::text_message(
      phone, "wamid.C" + std::to_string(sent), text);
    // Meta's delivery: retried until the webhook answers 200 (the gateway
    // may still be starting its listener).
    REQUIRE(eventually(
      [&] { return fake_whatsapp_cloud::post_webhook(hook, body) == 200; },
      std::chrono::seconds(10)));
    ++accepted;
  };
  p.all_acknowledged = [&] { return accepted == sent; };
  p.session_key = std::string{"whatsapp:"} + phone;
  slow_then_five_then_kill(h, llm, p, stop_signal);
}
