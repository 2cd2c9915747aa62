// The WhatsApp adapter in cloud mode against a scripted Business Cloud API
// and Meta's signed webhook calls.
#include <doctest/doctest.h>

#include <thread>

#include "tests/platforms/whatsapp_fixture.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("whatsapp cloud webhook answers the subscription check") {
  cloud t;
  t.start();
  std::string body;
  CHECK(fake_whatsapp_cloud::verify(t.hook, fake_whatsapp_cloud::verify_token,
                                    "1158201444", body)
        == 200);
  CHECK(body == "1158201444");
  CHECK(fake_whatsapp_cloud::verify(t.hook, "guess", "1", body) == 403);
}

TEST_CASE("whatsapp cloud signed webhook round trip and statuses") {
  cloud t;
  t.start();
  auto p = t.post(fake_whatsapp_cloud::text_message("16315551181",
                                                    "wamid.IN1", "Hello"));
  CHECK(p.status == 200);
  CHECK(t.receipts == 1); // answered 200 after the journal's receipt
  REQUIRE(p.msg);
  auto& in = *p.msg;
  CHECK(in.sender_id == "16315551181");
  CHECK(in.chat_id == "16315551181");
  CHECK(in.content == "Hello");
  CHECK(t.meta(in)["_message_id"] == "wamid.IN1");

  CHECK(t.deliver(reply("whatsapp", "16315551181", "Hi *there*")) == "");
  auto sent = t.graph.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["to"] == "16315551181");
  CHECK(sent[0]["type"] == "text");
  CHECK(sent[0]["text"]["body"] == "Hi *there*");

  // Statuses are counted, not handed on as messages.
  p = t.post(fake_whatsapp_cloud::status("wamid.OUT1", "delivered",
                                         "16315551181"), 300ms);
  CHECK(p.status == 200);
  CHECK_FALSE(p.msg);
  p = t.post(fake_whatsapp_cloud::status("wamid.OUT2", "failed",
                                         "16315551181", 131047), 300ms);
  CHECK(p.status == 200);
  auto detail = t.status().detail;
  CHECK(detail.find("delivered 1") != std::string::npos);
  CHECK(detail.find("failed 1") != std::string::npos);
  CHECK(detail.find("24-hour") != std::string::npos);
}

TEST_CASE("whatsapp cloud refuses a bad signature") {
  cloud t;
  t.start();
  auto body = fake_whatsapp_cloud::text_message("16315551181", "wamid.X",
                                                "forged");
  auto p = t.post(body, 1s, "not-the-secret");
  CHECK(p.status == 401);
  CHECK_FALSE(p.msg);
  p = t.post(body, 300ms, "");
  CHECK(p.status == 401);
  CHECK_FALSE(p.msg);
  CHECK(t.receipts == 0);
  // Malformed but signed: refused, the webhook stays up.
  CHECK(t.post(json{{"entry", 5}}, 300ms).status == 400);
  p = t.post(fake_whatsapp_cloud::text_message("1", "wamid.Y", "real"));
  CHECK(p.status == 200);
  REQUIRE(p.msg);
  CHECK(p.msg->content == "real");
}

TEST_CASE("whatsapp cloud honours 429 and explains the 24-hour window") {
  cloud t;
  t.start();
  t.graph.limit_sends(1, 1);
  CHECK(t.deliver(reply("whatsapp", "1", "eventually")) == "");
  CHECK(t.graph.send_calls() == 2);
  t.graph.refuse_outside_window(1);
  auto err = t.deliver(reply("whatsapp", "1", "too late"));
  CHECK(err.find("131047") != std::string::npos);
  CHECK(err.find("24-hour") != std::string::npos);
}

TEST_CASE("whatsapp cloud media in and out") {
  cloud t;
  t.graph.add_media("MEDIA42", "PNGBYTES", "image/png");
  t.start();
  auto p = t.post(fake_whatsapp_cloud::image_message("1", "wamid.IMG",
                                                     "MEDIA42", "look"));
  CHECK(p.status == 200);
  REQUIRE(p.msg);
  CHECK(p.msg->content.rfind("look\n[image: ", 0) == 0);
  REQUIRE(p.msg->media.size() == 1);
  CHECK(p.msg->media[0].rfind(t.dir.path + "/media/whatsapp/", 0) == 0);
  CHECK(read_all(p.msg->media[0]) == "PNGBYTES");

  auto doc = t.dir.path + "/report.pdf";
  std::ofstream{doc} << "%PDF-1.4";
  auto out = reply("whatsapp", "1", "the report");
  out.metadata_json = json{{"media", {doc}}}.dump();
  CHECK(t.deliver(out) == "");
  auto ups = t.graph.uploads();
  REQUIRE(ups.size() == 1);
  CHECK(ups[0] == "application/pdf|report.pdf|%PDF-1.4");
  auto sent = t.graph.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["type"] == "document");
  CHECK(sent[0]["document"]["id"] == "up-1");
  CHECK(sent[0]["document"]["caption"] == "the report");
  CHECK(sent[0]["document"]["filename"] == "report.pdf");
}
