// A re-delivered message its session had stored before a restart is one
// message, one turn: recognised by its inbox id, or by the id it had in
// another gateway's journal that the inbox took over ("_inbox_was").
#include <doctest/doctest.h>

#include <caf/scoped_actor.hpp>

#include "actors/supervisor/runtime.hpp"
#include "tests/integration/harness.hpp"

using namespace nb;
using namespace nb::test;

namespace {

/// Sends one message with an inbox id (and metadata) as the inbox would.
void deliver(caf::scoped_actor& self, const router_actor& router,
             const std::string& text, const std::string& inbox_id,
             const std::string& metadata_json) {
  inbound_msg in;
  in.channel = "telegram";
  in.chat_id = "7";
  in.sender_id = "u";
  in.content = text;
  in.inbox_id = inbox_id;
  in.metadata_json = metadata_json;
  in.reply_to = caf::actor_cast<outbound_sink>(self);
  self->send(router, std::move(in));
}

} // namespace

TEST_CASE("a re-delivery stored before the restart runs no second turn") {
  temp_home home;
  fake_llm llm;
  auto cfg = settings_for(home, llm);
  runtime rt{cfg};
  caf::scoped_actor self{rt.system()};
  auto final_reply = [&] {
    std::string got = "(none)";
    bool done = false;
    while (!done)
      self->receive(
        [&](outbound_msg& m) {
          if (m.kind == outbound_kind::final_reply) {
            got = m.content;
            done = true;
          }
        },
        caf::after(std::chrono::seconds(20)) >> [&] { done = true; });
    return got;
  };
  deliver(self, rt.router(), "hello", "aaaa.1", "{}");
  CHECK(final_reply().rfind("echo: hello", 0) == 0);
  // The same entry again (the settle did not reach the disk), then the
  // same message taken over from another gateway's journal under a new id.
  deliver(self, rt.router(), "hello", "aaaa.1", R"({"_replayed":true})");
  deliver(self, rt.router(), "hello", "bbbb.9",
          R"({"_replayed":true,"_inbox_was":"aaaa.1"})");
  // A replayed message never stored runs as usual.
  deliver(self, rt.router(), "after", "bbbb.10",
          R"({"_replayed":true,"_inbox_was":"aaaa.2"})");
  // The two re-deliveries say nothing; the next answer is the new one's.
  CHECK(final_reply().rfind("echo: after", 0) == 0);
  std::vector<std::string> users;
  for (auto& m : session_messages(cfg, "telegram:7"))
    if (m.value("role", "") == "user")
      users.push_back(m["content"].get<std::string>());
  CHECK(users == std::vector<std::string>{"hello", "after"});
  CHECK(llm.request_count() == 2);
}
