// A cluster on loopback, as users run it: a gateway node, two agent nodes and
// a tools node as real processes, chats through the API and through the
// cluster front, agents killed and frozen while turns run.
#include <doctest/doctest.h>

#include <csignal>
#include <fstream>
#include <algorithm>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <caf/scoped_actor.hpp>

#include "tests/cluster/cluster_fixture.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

/// Every user message text stored for `key` on the gateway.
std::vector<std::string> stored_user_texts(const loopback_cluster& c,
                                           const std::string& key) {
  std::vector<std::string> out;
  for (auto& m : session_messages(c.gateway_settings(), key))
    if (m.value("role", "") == "user" && m["content"].is_string())
      out.push_back(m["content"].get<std::string>());
  return out;
}

inbound_msg api_msg(const std::string& chat, const std::string& text,
                    const outbound_sink& to) {
  inbound_msg in;
  in.channel = "api";
  in.sender_id = "tester";
  in.chat_id = chat;
  in.content = text;
  in.reply_to = to;
  return in;
}

} // namespace

TEST_CASE("chats are served by two agent nodes and tools run on the tools node") {
  fake_llm llm;
  // Not a failure-detection case: a loaded box (the whole suite beside it)
  // must not have a node declared dead while it waits for a time slice.
  loopback_cluster c{llm, 2, true, true, json{{"connectionTimeoutMs", 5000}}};
  c.start_gateway();
  c.start_agent(1);
  c.start_agent(2);
  c.start_tools();
  REQUIRE(c.gateway().wait_for_log("node tools-1 joined as tools",
                                   std::chrono::seconds(10)));
  // Both agents switched their sessions' tool calls to the tools node.
  REQUIRE(c.agent(1).wait_for_log("runs tool calls on a tools node",
                                  std::chrono::seconds(10)));
  REQUIRE(c.agent(2).wait_for_log("runs tool calls on a tools node",
                                  std::chrono::seconds(10)));
  // A file only the tools node's workspace has.
  std::ofstream{c.tools_workspace() + "/where.txt"} << "on the tools node\n";
  llm.push(tool_calls({call("c1", "read_file", json{{"path", "where.txt"}})}));
  llm.push(text("read it"));
  // Each chat fails fast with what the nodes logged, never a 60 s stall
  // per chat.
  auto tooling = c.chat("tooling", "what does where.txt say?", 20);
  REQUIRE_MESSAGE(tooling == "read it", c.report());
  auto reqs = llm.requests();
  REQUIRE(reqs.size() >= 2);
  auto tool_msg = reqs[1].body["messages"].back();
  CHECK(tool_msg["role"] == "tool");
  CHECK(tool_msg["content"].get<std::string>().find("on the tools node")
        != std::string::npos);

  for (int i = 0; i < 40; ++i) {
    auto s = "chat-" + std::to_string(i);
    auto answer = c.chat(s, "hello " + s, 20);
    REQUIRE_MESSAGE(starts_with(answer, "echo: hello " + s),
                    "chat " << s << " got '" << answer << "'\n" << c.report());
  }
  // Both agent nodes took a share of the sessions.
  auto log = c.gateway().err();
  CHECK(count_of(log, "placed on agent-1") > 0);
  CHECK(count_of(log, "placed on agent-2") > 0);
  CHECK(count_of(log, "placed on gateway-1") == 0);
  // Nodes listen on 127.0.0.1:0: /stats shows the port each one is
  // published on (the OS picks it when the node is published).
  auto stats = c.get("/stats");
  REQUIRE(stats);
  auto nodes = json::parse(stats->body, nullptr, false)["nodes"];
  REQUIRE(nodes.is_array());
  for (int i = 1; i <= 2; ++i) {
    auto id = "agent-" + std::to_string(i);
    CAPTURE(id);
    std::string address;
    for (auto& n : nodes)
      if (n.value("node_id", "") == id)
        address = n.value("address", "");
    REQUIRE(starts_with(address, "127.0.0.1:"));
    CHECK(address != "127.0.0.1:0");
    CHECK(count_of(c.agent(i).err(), "listening on " + address + ";") == 1);
  }
}

TEST_CASE("per-chat order holds across the cluster with hundreds of concurrent chats") {
  fake_llm llm;
  // Replies take a little, differently per chat, so turns overlap.
  llm.set_responder([](const json& body) {
    auto r = fake_llm::echo(body);
    r.delay = std::chrono::milliseconds(body.dump().size() % 7 * 3);
    return r;
  });
  loopback_cluster c{llm, 2, false};
  c.start_gateway();
  c.start_agent(1);
  c.start_agent(2);
  client_system client;
  auto front = client.connect(c.cluster_port());
  caf::scoped_actor self{*client.sys};
  auto sink = caf::actor_cast<outbound_sink>(self);
  constexpr int chats = 200, per_chat = 4;
  for (int m = 0; m < per_chat; ++m)
    for (int i = 0; i < chats; ++i)
      self->send(front, api_msg("o" + std::to_string(i),
                                "m" + std::to_string(m), sink));
  std::map<std::string, std::vector<std::string>> got;
  int finals = 0;
  bool timed_out = false;
  while (finals < chats * per_chat && !timed_out)
    self->receive(
      [&](outbound_msg& out) {
        if (out.kind != outbound_kind::final_reply)
          return;
        ++finals;
        got[out.session_key].push_back(out.content.substr(0, 8));
      },
      caf::after(std::chrono::seconds(60)) >> [&] { timed_out = true; });
  if (timed_out) {
    // Say which chats are short and what the nodes logged about it.
    std::string missing;
    for (int i = 0; i < chats; ++i) {
      auto key = "api:o" + std::to_string(i);
      if (got[key].size() < per_chat)
        missing += key + "(" + std::to_string(got[key].size()) + ") ";
    }
    MESSAGE("finals " << finals << "; short chats: " << missing.substr(0, 400));
    MESSAGE(c.report());
  }
  REQUIRE_FALSE(timed_out);
  REQUIRE(got.size() == chats);
  // Each message answered exactly once (replies travel through different
  // relays, so their arrival order is not the promise; the transcript is).
  for (auto& [key, replies] : got) {
    CAPTURE(key);
    REQUIRE(replies.size() == per_chat);
    std::sort(replies.begin(), replies.end());
    for (int m = 0; m < per_chat; ++m)
      CHECK(starts_with(replies[m], "echo: m" + std::to_string(m)));
  }
  // Each conversation ran its turns in arrival order: user m0, its answer,
  // user m1, its answer, ...
  for (int i = 0; i < chats; i += 7) {
    auto key = "api:o" + std::to_string(i);
    CAPTURE(key);
    auto msgs = session_messages(c.gateway_settings(), key);
    REQUIRE(msgs.size() == 2 * per_chat);
    for (int m = 0; m < per_chat; ++m) {
      CHECK(msgs[2 * m]["content"] == "m" + std::to_string(m));
      CHECK(starts_with(msgs[2 * m + 1]["content"].get<std::string>(),
                        "echo: m" + std::to_string(m)));
    }
  }
}

TEST_CASE("kill -9 of an agent node mid-turn loses no message over 20 repetitions") {
  fake_llm llm;
  llm.set_responder([](const json& body) {
    auto r = fake_llm::echo(body);
    r.delay = std::chrono::milliseconds(150);
    return r;
  });
  loopback_cluster c{llm, 2, false};
  c.start_gateway();
  c.start_agent(1);
  c.start_agent(2);
  client_system client;
  auto front = client.connect(c.cluster_port());
  caf::scoped_actor self{*client.sys};
  auto sink = caf::actor_cast<outbound_sink>(self);
  constexpr int chats = 12;
  std::map<std::string, std::vector<std::string>> sent; // key -> texts
  int interrupted = 0, answered = 0;
  for (int rep = 0; rep < 20; ++rep) {
    CAPTURE(rep);
    auto before = llm.request_count();
    int expected = 0;
    for (int i = 0; i < chats; ++i)
      for (int m = 0; m < 2; ++m) {
        auto chat = "k" + std::to_string(i);
        auto text = "r" + std::to_string(rep) + "m" + std::to_string(m);
        sent["api:" + chat].push_back(text);
        self->send(front, api_msg(chat, text, sink));
        ++expected;
      }
    // Kill agent-1 while turns are with the model.
    for (int i = 0; i < 500 && llm.request_count() < before + 4; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    c.agent(1).signal(SIGKILL);
    c.agent(1).wait(std::chrono::seconds(10));
    int finals = 0;
    bool timed_out = false;
    while (finals < expected && !timed_out)
      self->receive(
        [&](outbound_msg& out) {
          if (out.kind != outbound_kind::final_reply)
            return;
          ++finals;
          if (out.content.find("interrupted") != std::string::npos)
            ++interrupted;
          else if (starts_with(out.content, "echo: r"))
            ++answered;
        },
        caf::after(std::chrono::seconds(30)) >> [&] { timed_out = true; });
    REQUIRE_FALSE(timed_out);
    CHECK(finals == expected);
    c.start_agent(1); // it rejoins and takes its share back
  }
  CHECK(answered + interrupted == 20 * chats * 2);
  CHECK(interrupted > 0); // some turns really were cut short
  // 0 messages lost: every message is in its conversation, in order.
  for (auto& [key, texts] : sent) {
    CAPTURE(key);
    CHECK(stored_user_texts(c, key) == texts);
  }
  // An affected chat continues with its history.
  CHECK(starts_with(c.chat("k0", "still there?"), "echo: still there?"));
  auto last = llm.requests().back().body["messages"];
  CHECK(last.size() > 40);
}

TEST_CASE("a frozen agent node is detected and its chats move on") {
  fake_llm llm;
  loopback_cluster c{llm, 2, false};
  c.start_gateway();
  c.start_agent(1);
  c.start_agent(2);
  for (int i = 0; i < 20; ++i)
    CHECK(starts_with(c.chat("f" + std::to_string(i), "before"), "echo: before"));
  c.agent(2).signal(SIGSTOP);
  auto stopped = std::chrono::steady_clock::now();
  REQUIRE(c.gateway().wait_for_log("node agent-2 (agent", std::chrono::seconds(15)));
  auto detected = std::chrono::steady_clock::now() - stopped;
  // connectionTimeoutMs is 1000; generous for a loaded machine.
  CHECK(detected < std::chrono::seconds(10));
  for (int i = 0; i < 20; ++i) {
    auto s = "f" + std::to_string(i);
    CHECK(starts_with(c.chat(s, "after"), "echo: after"));
    CHECK(stored_user_texts(c, "api:" + s)
          == std::vector<std::string>{"before", "after"});
  }
  // Thawed, it notices it was dropped and rejoins.
  c.agent(2).signal(SIGCONT);
  CHECK(wait_for_count(c.gateway(), "agent node agent-2 takes", 2,
                       std::chrono::seconds(15)));
}

TEST_CASE("replies reach a front client that stays quiet longer than the connection timeout") {
  fake_llm llm;
  // The first answer comes after 2.5 s, beyond the nodes' 1 s connection
  // timeout: only the client's heartbeats keep the gateway from dropping it.
  llm.set_responder([](const json& body) {
    auto r = fake_llm::echo(body);
    r.delay = std::chrono::milliseconds(2500);
    return r;
  });
  loopback_cluster c{llm, 1, false};
  c.start_gateway();
  c.start_agent(1);
  client_system client;
  auto front = client.connect(c.cluster_port());
  caf::scoped_actor self{*client.sys};
  auto sink = caf::actor_cast<outbound_sink>(self);
  for (int i = 0; i < 3; ++i)
    self->send(front, api_msg("quiet" + std::to_string(i), "hush", sink));
  int finals = 0;
  bool timed_out = false;
  while (finals < 3 && !timed_out)
    self->receive(
      [&](outbound_msg& out) {
        if (out.kind == outbound_kind::final_reply
            && starts_with(out.content, "echo: hush"))
          ++finals;
      },
      caf::after(std::chrono::seconds(30)) >> [&] { timed_out = true; });
  CHECK_FALSE(timed_out);
  CHECK(finals == 3);
}
