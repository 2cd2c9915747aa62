// The message tool: delivery to the outbox (default target = the turn's
// chat), cross-chat sends, media and buttons checks, and suppression.
#include <doctest/doctest.h>

#include <chrono>

#include <caf/all.hpp>

#include "messages/type_ids.hpp"
#include "tests/support/system_fixture.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

namespace {

struct message_fixture : test::system_fixture {
  test::temp_tree tree;
  caf::scoped_actor box{sys};

  tool_context ctx() {
    auto c = tree.ctx();
    c.channel = "telegram";
    c.chat_id = "42";
    c.outbox = caf::actor_cast<outbound_sink>(box);
    return c;
  }

  /// The next outbound message the outbox got (fails the test if none).
  outbound_msg next() {
    outbound_msg got;
    box->receive([&](outbound_msg& m) { got = std::move(m); },
                 caf::after(std::chrono::seconds(5)) >> [] {
                   FAIL("no outbound message");
                 });
    return got;
  }

  bool silent() {
    bool none = true;
    box->receive([&](outbound_msg&) { none = false; },
                 caf::after(std::chrono::milliseconds(100)) >> [] {});
    return none;
  }
};

} // namespace

TEST_CASE_FIXTURE(message_fixture, "message goes to the turn's chat by default") {
  auto out = test::run(ctx(), "message", {{"content", "halfway there"}});
  CHECK_FALSE(out.is_error);
  CHECK(out.content == "Message sent to telegram:42");
  CHECK(out.delivered_to_origin);
  auto m = next();
  CHECK(m.channel == "telegram");
  CHECK(m.chat_id == "42");
  CHECK(m.content == "halfway there");
  CHECK(m.kind == outbound_kind::final_reply);
}

TEST_CASE_FIXTURE(message_fixture, "message to another chat is not the answer") {
  auto out = test::run(ctx(), "message",
                       {{"content", "hi"}, {"channel", "discord"},
                        {"chat_id", "7"}});
  CHECK(out.content == "Message sent to discord:7");
  CHECK_FALSE(out.delivered_to_origin);
  auto m = next();
  CHECK(m.channel == "discord");
  CHECK(m.chat_id == "7");
}

TEST_CASE_FIXTURE(message_fixture, "message attaches workspace files and buttons") {
  tree.put("ws/report.txt", "r");
  auto out = test::run(ctx(), "message",
                       {{"content", "see"}, {"media", {"report.txt"}},
                        {"buttons", {{"Yes", "No"}, {"Later"}}}});
  CHECK(out.content
        == "Message sent to telegram:42 with 1 attachments with 3 button(s)");
  auto meta = json::parse(next().metadata_json);
  CHECK(meta["media"][0] == tree.ws + "/report.txt");
  CHECK(meta["buttons"][1][0] == "Later");
  CHECK(meta["_record_channel_delivery"] == true);
  auto outside = test::run(ctx(), "message",
                           {{"content", "x"},
                            {"media", {tree.outside + "/secret.txt"}}});
  CHECK(outside.is_error);
  CHECK(has(outside.content, "outside allowed directory"));
  auto meta_url = test::run(ctx(), "message",
                            {{"content", "x"},
                             {"media", {"http://169.254.169.254/x.png"}}});
  CHECK(meta_url.is_error);
  CHECK(has(meta_url.content, "media URL refused"));
  auto bad = test::run(ctx(), "message",
                       {{"content", "x"}, {"buttons", {{""}}}});
  CHECK(bad.is_error);
  CHECK(has(bad.content, "buttons must be a list of rows"));
  CHECK(silent());
}

TEST_CASE_FIXTURE(message_fixture, "message honours suppressed delivery") {
  auto c = ctx();
  c.suppress_delivery = true;
  auto out = test::run(c, "message", {{"content", "quiet"}});
  CHECK_FALSE(out.is_error);
  CHECK(out.content == "Message acknowledged for telegram:42 (not delivered)");
  CHECK_FALSE(out.delivered_to_origin);
  CHECK(silent());
}

TEST_CASE_FIXTURE(message_fixture, "message needs a target and an outbox") {
  auto c = ctx();
  c.outbox = nullptr;
  auto none = test::run(c, "message", {{"content", "x"}});
  CHECK(none.is_error);
  CHECK(has(none.content, "not configured"));
  c = ctx();
  c.channel.clear();
  auto nowhere = test::run(c, "message", {{"content", "x"}});
  CHECK(has(nowhere.content, "No target channel/chat"));
}
