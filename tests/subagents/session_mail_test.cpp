// send_session_message against the original's contract, on a copy of the
// fixture home (session files the original wrote): the tool resolves both
// sessions by @handle or key, the real subagents manager rate-limits and
// hands the message to its inbound sink (here a scoped actor standing where
// the inbox stands) with the original's envelope, and a reply that does not
// come in time brings the original's notice back to the sender.
#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <regex>

#include <caf/all.hpp>

#include "actors/subagents/subagents.hpp"
#include "actors/tools/registry.hpp"
#include "nb_test_paths.hpp" // NB_SOURCE_DIR
#include "tests/support/scratch_dir.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

/// The fixture home, a manager and the sink it hands messages to.
struct mail_home {
  test::scratch_dir home;
  test::system_fixture fx;
  caf::scoped_actor entry{fx.sys}; ///< where the inbox would be
  subagents_actor manager;
  tool_registry reg;
  tool_context ctx;

  explicit mail_home(int per_minute = 6) {
    fs::copy(std::string{NB_SOURCE_DIR}
               + "/tests/fixtures/nanobot-home/.nanobot",
             home.at(".nanobot"), fs::copy_options::recursive);
    settings cfg;
    cfg.tools.max_session_messages_per_minute = per_minute;
    reg = make_builtin_registry(cfg);
    manager = fx.sys.spawn(subagents_impl, subagent_config{}, provider_actor{},
                           tools_actor{}, stats_actor{});
    caf::anon_send(manager, caf::actor_cast<inbound_sink>(entry));
    ctx = make_tool_context(cfg, "cli:direct");
    ctx.config_dir = home.at(".nanobot");
    ctx.workspace = home.at(".nanobot/workspace");
    ctx.channel = "cli";
    ctx.chat_id = "direct";
    ctx.system = &fx.sys;
    ctx.mail = caf::actor_cast<caf::actor>(manager);
  }
  ~mail_home() {
    caf::anon_send_exit(manager, caf::exit_reason::user_shutdown);
  }

  tool_output send(const json& args) {
    return reg.execute({"c1", "send_session_message", args.dump()}, ctx);
  }

  /// The next message the manager handed on, or nothing within `wait`.
  std::optional<inbound_msg> next(std::chrono::seconds wait = 10s) {
    std::optional<inbound_msg> got;
    entry->receive([&](inbound_msg& m) { got = std::move(m); },
                   caf::after(wait) >> [] {});
    return got;
  }
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("send_session_message: the schema and flags are the original's") {
  auto reg = make_builtin_registry(settings{});
  auto* tool = reg.find("send_session_message");
  REQUIRE(tool);
  CHECK_FALSE(tool->spec.read_only);
  CHECK_FALSE(tool->spec.exclusive);
  auto schema = json::parse(tool->spec.parameters_json);
  CHECK(schema["required"] == json{"to", "content", "expect_reply"});
  CHECK(schema["properties"]["to"]["type"] == "string");
  CHECK(schema["properties"]["content"]["type"] == "string");
  CHECK(schema["properties"]["expect_reply"]["type"] == "boolean");
  auto& timeout = schema["properties"]["reply_timeout_seconds"];
  CHECK(timeout["type"] == "integer");
  CHECK(timeout["minimum"] == 5);
  CHECK(timeout["maximum"] == 60);
}

TEST_CASE("send_session_message: user input for the target, with the "
          "original's envelope") {
  mail_home h;
  auto r = h.send({{"to", "@kevu"},
                   {"content", "<think>plan</think>Is the build green?"},
                   {"expect_reply", false}});
  REQUIRE_MESSAGE(!r.is_error, r.content);
  CHECK(r.content == "Sent to @kevu.");
  auto m = h.next();
  REQUIRE(m);
  CHECK(m->channel == "telegram");
  CHECK(m->chat_id == "4242");
  CHECK(m->sender_id == "session");
  CHECK(m->session_key_override == "telegram:4242");
  CHECK(m->content == "Is the build green?");
  auto meta = json::parse(m->metadata_json);
  CHECK(meta["_agent"] == "main");
  auto& env = meta["_session_message"];
  CHECK(std::regex_match(env["message_id"].get<std::string>(),
                         std::regex{"[0-9a-f]{32}"}));
  CHECK(env["created_at_ms"].get<int64_t>() > 1700000000000);
  CHECK(env["expect_reply"] == false);
  CHECK(env["source_handle"] == "peti");
  CHECK(env["source_session_key"] == "cli:direct");
  CHECK(env["target_session_key"] == "telegram:4242");
  // An exact session key names the target as well as its handle does.
  r = h.send(
    {{"to", "telegram:4242"}, {"content", "again"}, {"expect_reply", false}});
  CHECK(r.content == "Sent to @kevu.");
  REQUIRE(h.next());
}

TEST_CASE("send_session_message: refusals name the problem") {
  mail_home h;
  auto self =
    h.send({{"to", "@peti"}, {"content", "x"}, {"expect_reply", false}});
  CHECK(self.is_error);
  CHECK(has(self.content, "a session cannot send a message to itself"));
  auto missing =
    h.send({{"to", "@zuzu"}, {"content", "x"}, {"expect_reply", false}});
  CHECK(has(missing.content, "Error: session @zuzu was not found"));
  auto invalid =
    h.send({{"to", "@ab"}, {"content", "x"}, {"expect_reply", false}});
  CHECK(has(invalid.content, "Error: session handle is invalid"));
  auto no_timeout =
    h.send({{"to", "@kevu"}, {"content", "x"}, {"expect_reply", true}});
  CHECK(has(no_timeout.content,
            "Error: expect_reply=true requires reply_timeout_seconds between "
            "5 and 60"));
  auto too_long = h.send({{"to", "@kevu"},
                          {"content", "x"},
                          {"expect_reply", true},
                          {"reply_timeout_seconds", 61}});
  CHECK(too_long.is_error);
  CHECK(has(too_long.content, "reply_timeout_seconds"));
  auto no_flag = h.send({{"to", "@kevu"}, {"content", "x"}});
  CHECK(has(no_flag.content, "expect_reply"));
  // Nothing of that reached the entry.
  CHECK_FALSE(h.next(1s));
  // Without the manager (a turn that has none) nothing is sent either.
  h.ctx.mail = nullptr;
  auto alone =
    h.send({{"to", "@kevu"}, {"content", "x"}, {"expect_reply", false}});
  CHECK(has(alone.content, "session messages cannot be sent from here"));
}

TEST_CASE("send_session_message: tools.maxSessionMessagesPerMinute per "
          "sending session") {
  mail_home h{2};
  for (int i = 0; i < 2; ++i) {
    auto r = h.send({{"to", "@kevu"},
                     {"content", "n" + std::to_string(i)},
                     {"expect_reply", false}});
    CHECK(r.content == "Sent to @kevu.");
    REQUIRE(h.next());
  }
  auto third =
    h.send({{"to", "@kevu"}, {"content", "n2"}, {"expect_reply", false}});
  CHECK(third.is_error);
  CHECK(has(third.content, "Error: session message rate limit reached "
                           "(2/minute)"));
  CHECK_FALSE(h.next(1s));
  // The other session has a window of its own.
  h.ctx.session_key = "telegram:4242";
  auto back =
    h.send({{"to", "@peti"}, {"content", "answer"}, {"expect_reply", false}});
  CHECK(back.content == "Sent to @peti.");
  auto m = h.next();
  REQUIRE(m);
  CHECK(m->channel == "cli");
  CHECK(m->chat_id == "direct");
}

TEST_CASE("send_session_message: a reply that does not come brings the "
          "original's notice; one that comes cancels it") {
  mail_home h;
  auto r = h.send({{"to", "@kevu"},
                   {"content", "ping"},
                   {"expect_reply", true},
                   {"reply_timeout_seconds", 5}});
  CHECK(r.content
        == "Sent to @kevu. A timeout notice will arrive after 5s "
           "unless it replies.");
  auto sent = h.next();
  REQUIRE(sent);
  CHECK(json::parse(sent->metadata_json)["_session_message"]["expect_reply"]
        == true);
  auto notice = h.next(30s);
  REQUIRE(notice);
  CHECK(notice->content == "No reply from @kevu after 5 seconds.");
  CHECK(notice->sender_id == "session_timeout");
  CHECK(notice->channel == "cli");
  CHECK(notice->chat_id == "direct");
  CHECK(notice->session_key_override == "cli:direct");

  // Asked again, and this time @kevu answers: no notice follows.
  r = h.send({{"to", "@kevu"},
              {"content", "ping again"},
              {"expect_reply", true},
              {"reply_timeout_seconds", 5}});
  REQUIRE_FALSE(r.is_error);
  REQUIRE(h.next());
  h.ctx.session_key = "telegram:4242";
  h.ctx.channel = "telegram";
  h.ctx.chat_id = "4242";
  auto answer =
    h.send({{"to", "@peti"}, {"content", "pong"}, {"expect_reply", false}});
  REQUIRE_FALSE(answer.is_error);
  auto reply = h.next();
  REQUIRE(reply);
  CHECK(reply->content == "pong");
  CHECK_FALSE(h.next(8s));
}
