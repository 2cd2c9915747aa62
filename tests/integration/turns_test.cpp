// Whole turns through the real actor tree (router, sessions, runner, store,
// provider, tools) against the scripted LLM.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <caf/scoped_actor.hpp>

#include "actors/store/session_files.hpp"
#include "actors/supervisor/runtime.hpp"
#include "tests/integration/gateway_fixture.hpp"
#include "tests/integration/harness.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

struct turns_gateway : gateway_fixture {
  explicit turns_gateway(void (*tune)(settings&) = nullptr)
      : gateway_fixture([tune](settings& s, fake_llm&) {
          if (tune)
            tune(s);
        }) {}

  chat_reply say(const std::string& text, const std::string& chat_id = "t1",
                 bool stream = false) {
    return say_in(chat_id, text, stream);
  }

  int live_sessions() {
    caf::scoped_actor self{rt->system()};
    int32_t n = -1;
    self->request(rt->router(), std::chrono::seconds(5), live_sessions_atom::value)
      .receive([&](int32_t x) { n = x; }, [](caf::error&) {});
    return n;
  }
};

std::string last_user_text(const json& body) {
  std::string out;
  for (auto& m : body["messages"])
    if (m["role"] == "user" && m["content"].is_string())
      out = m["content"].get<std::string>();
  return out;
}

} // namespace

TEST_CASE("a plain message gets the model's answer and is saved") {
  turns_gateway gw;
  auto r = gw.say("hello there");
  REQUIRE_FALSE(r.timed_out);
  CHECK_FALSE(r.is_error);
  CHECK(r.content.rfind("echo: hello there", 0) == 0);
  auto msgs = session_messages(gw.cfg, "test:t1");
  REQUIRE(msgs.size() == 2);
  CHECK(msgs[0]["role"] == "user");
  CHECK(msgs[0]["content"] == "hello there");
  CHECK(msgs[1]["role"] == "assistant");
  // The system prompt comes first and the runtime block follows the text.
  auto body = gw.llm.requests().at(0).body;
  CHECK(body["messages"][0]["role"] == "system");
  CHECK(last_user_text(body).find("[Runtime Context") != std::string::npos);
}

TEST_CASE("the model's tool calls run and their results go back to it") {
  turns_gateway gw;
  std::ofstream{gw.cfg.workspace_path() + "/notes.txt"} << "remember the milk\n";
  gw.llm.push(tool_calls({call("c1", "list_dir", json{{"path", "."}})}));
  gw.llm.push(text("There is one file: notes.txt"));
  auto r = gw.say("list the files in the workspace");
  CHECK(r.content == "There is one file: notes.txt");
  CHECK_FALSE(r.is_error);
  bool saw_hint = false;
  for (auto& m : r.before)
    saw_hint = saw_hint || (m.kind == outbound_kind::progress
                            && m.content.find("list_dir") != std::string::npos);
  CHECK(saw_hint);
  auto second = gw.llm.requests().at(1).body["messages"];
  auto tool_msg = second[second.size() - 1];
  CHECK(tool_msg["role"] == "tool");
  CHECK(tool_msg["tool_call_id"] == "c1");
  CHECK(tool_msg["content"].get<std::string>().find("notes.txt") != std::string::npos);
  auto msgs = session_messages(gw.cfg, "test:t1");
  REQUIRE(msgs.size() == 4);
  CHECK(msgs[1]["tool_calls"][0]["function"]["name"] == "list_dir");
  CHECK(msgs[2]["role"] == "tool");
  CHECK(msgs[3]["content"] == "There is one file: notes.txt");
}

TEST_CASE("the iteration limit ends with one request without tools") {
  turns_gateway gw{[](settings& s) { s.agent.max_tool_iterations = 2; }};
  gw.llm.set_responder([](const json& body) {
    if (body.contains("tools"))
      return tool_calls({call("c", "list_dir", json{{"path", "."}})});
    return text("I looked twice; here is what I found.");
  });
  auto r = gw.say("keep looking");
  CHECK(r.content == "I looked twice; here is what I found.");
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 3);
  CHECK(reqs[0].body.contains("tools"));
  CHECK_FALSE(reqs[2].body.contains("tools"));
}

TEST_CASE("when the finalisation fails too the user gets a fixed explanation") {
  turns_gateway gw{[](settings& s) { s.agent.max_tool_iterations = 1; }};
  gw.llm.set_responder([](const json& body) {
    if (body.contains("tools"))
      return tool_calls({call("c", "list_dir", json{{"path", "."}})});
    return error(400, "bad request");
  });
  auto r = gw.say("loop");
  CHECK(r.content.find("tool steps") != std::string::npos);
}

TEST_CASE("a provider error reaches the user as a clear message") {
  turns_gateway gw{
    [](settings& s) { s.providers["custom"].api_key = "sk-secret-canary"; }};
  gw.llm.push(error(401, "invalid api key"));
  auto r = gw.say("hi");
  CHECK(r.is_error);
  CHECK(r.content.find("401") != std::string::npos);
  CHECK(r.content.find("sk-secret-canary") == std::string::npos);
  // The session still works and keeps alternating roles.
  auto again = gw.say("hi again");
  CHECK_FALSE(again.is_error);
  auto msgs = session_messages(gw.cfg, "test:t1");
  REQUIRE(msgs.size() == 4);
  CHECK(msgs[1]["role"] == "assistant");
}

TEST_CASE("an unconfigured provider answers with what to configure") {
  turns_gateway gw{[](settings& s) {
    s.providers.clear();
    s.agent.provider = "auto";
  }};
  auto r = gw.say("hi");
  CHECK(r.is_error);
  CHECK(r.content.find("providers.") != std::string::npos);
  CHECK(gw.llm.request_count() == 0);
}

TEST_CASE("streamed answers arrive as deltas and are marked streamed") {
  turns_gateway gw;
  gw.llm.push(stream_text({"Hel", "lo ", "world"}));
  auto r = gw.say("stream please", "t1", true);
  CHECK(r.content == "Hello world");
  CHECK(r.streamed);
  std::string joined;
  for (auto& m : r.before)
    if (m.kind == outbound_kind::delta)
      joined += m.content;
  CHECK(joined == "Hello world");
}

TEST_CASE("malformed tool calls never run and never poison the session") {
  turns_gateway gw;
  gw.llm.push(tool_calls({call("c1", nullptr, json::object())}));
  gw.llm.push(tool_calls({call("c2", "list_dir", std::string{R"({"path": )"})}));
  gw.llm.push(text("recovered"));
  auto r = gw.say("do something");
  CHECK(r.content == "recovered");
  auto reqs = gw.llm.requests();
  REQUIRE(reqs.size() == 3);
  // The bad arguments came back to the model as an error result.
  auto msgs = reqs[2].body["messages"];
  auto tool_msg = msgs[msgs.size() - 1];
  CHECK(tool_msg["role"] == "tool");
  CHECK(tool_msg["content"].get<std::string>().find("Error") != std::string::npos);
  // No null-named call was saved.
  for (auto& m : session_messages(gw.cfg, "test:t1"))
    if (m.contains("tool_calls"))
      for (auto& c : m["tool_calls"])
        CHECK(c["function"]["name"].is_string());
}

TEST_CASE("help and new are answered without the model") {
  turns_gateway gw;
  gw.say("first");
  auto h = gw.say("/HELP");
  CHECK(h.content.find("/new") != std::string::npos);
  auto u = gw.say("/nwe");
  CHECK(u.content.find("Did you mean \"/new\"") != std::string::npos);
  auto n = gw.say("/new");
  CHECK(n.content == "New session started.");
  // Only "first" reached the agent model; /new may add one background
  // archive request for the conversation it closed.
  auto agent_requests = [&] {
    std::vector<json> out;
    for (auto& r : gw.llm.requests())
      if (r.body["messages"].back().dump().find("<conversation>")
          == std::string::npos) // archive requests end with the transcript
        out.push_back(r.body);
    return out;
  };
  CHECK(agent_requests().size() == 1);
  CHECK(session_messages(gw.cfg, "test:t1").empty());
  gw.say("after new");
  auto body = agent_requests().back();
  for (auto& m : body["messages"])
    if (m["role"] != "system") // the history, not the instructions
      CHECK(m["content"].dump().find("first") == std::string::npos);
}

TEST_CASE("an interrupted turn on disk is repaired at the next turn") {
  turns_gateway gw;
  gw.say("setup"); // creates the file
  auto dir = *resolve_sessions_dir(gw.cfg);
  {
    std::ofstream out{dir + "/" + session_file_name("test:t1"), std::ios::app};
    out << R"({"role":"user","content":"lost in a crash"})" "\n";
    out << R"({"role":"assistant","content":null,"tool_calls":[{"id":"k1","type":"function","function":{"name":"exec","arguments":"{}"}}]})" "\n";
    out << R"({"role":"user","content":"half a li)";
  }
  // A fresh session actor (another chat key is not enough: restart the tree).
  gw.rt.reset();
  gw.rt = std::make_unique<runtime>(gw.cfg);
  auto r = gw.say("next");
  CHECK_FALSE(r.is_error);
  auto msgs = session_messages(gw.cfg, "test:t1");
  std::vector<std::string> roles;
  for (auto& m : msgs)
    roles.push_back(m["role"]);
  REQUIRE(msgs.size() == 8);
  CHECK(msgs[3]["role"] == "assistant");
  CHECK(msgs[4]["role"] == "tool");
  CHECK(msgs[4]["tool_call_id"] == "k1");
  CHECK(msgs[5]["role"] == "assistant");
  CHECK(msgs[6]["content"] == "next");
}

TEST_CASE("idle sessions quit and come back from disk") {
  // Without idle compaction: a chat with turns not yet archived keeps its
  // actor until that is done (idle_compact_test covers that case).
  turns_gateway gw{[](settings& s) {
    s.gateway.session_idle_s = 1;
    s.agent.idle_compact_after_minutes = 0;
  }};
  gw.say("remember 42");
  CHECK(gw.live_sessions() == 1);
  for (int i = 0; i < 50 && gw.live_sessions() != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(gw.live_sessions() == 0);
  gw.say("what did I say?");
  auto body = gw.llm.requests().back().body;
  CHECK(body.dump().find("remember 42") != std::string::npos);
}

TEST_CASE("a turn whose storage fails tells the user and the session recovers") {
  turns_gateway gw;
  gw.say("first");
  auto file = *resolve_sessions_dir(gw.cfg) + "/" + session_file_name("test:t2");
  std::filesystem::create_directories(file); // a directory where the file goes
  auto r = gw.say("this cannot be saved", "t2");
  CHECK(r.is_error);
  CHECK(r.content.find("could not read this conversation") != std::string::npos);
  CHECK(r.content.find("Is a directory") != std::string::npos);
  std::filesystem::remove_all(file);
  auto ok = gw.say("now it can", "t2");
  CHECK_FALSE(ok.is_error);
  CHECK(ok.content.rfind("echo: now it can", 0) == 0);
}

TEST_CASE("streamed tool calls run and the streamed answer follows") {
  turns_gateway gw;
  std::ofstream{gw.cfg.workspace_path() + "/a.txt"} << "alpha\n";
  std::ofstream{gw.cfg.workspace_path() + "/b.txt"} << "beta\n";
  gw.llm.push(stream_tool_calls({call("r1", "read_file", json{{"path", "a.txt"}}),
                                 call("r2", "read_file", json{{"path", "b.txt"}})},
                                4));
  gw.llm.push(stream_text({"Both ", "files ", "read."}));
  auto r = gw.say("read both files", "t1", true);
  CHECK(r.content == "Both files read.");
  CHECK(r.streamed);
  auto msgs = gw.llm.requests().at(1).body["messages"];
  auto n = msgs.size();
  REQUIRE(n >= 3);
  CHECK(msgs[n - 2]["tool_call_id"] == "r1");
  CHECK(msgs[n - 2]["content"].get<std::string>().find("alpha") != std::string::npos);
  CHECK(msgs[n - 1]["tool_call_id"] == "r2");
  CHECK(msgs[n - 1]["content"].get<std::string>().find("beta") != std::string::npos);
}

TEST_CASE("a rate-limited model call is retried and the user hears about the wait") {
  turns_gateway gw;
  gw.llm.push(error(429, "slow down", 1));
  auto r = gw.say("patience", "t1", true);
  CHECK_FALSE(r.is_error);
  CHECK(r.content.rfind("echo: patience", 0) == 0);
  bool told = false;
  for (auto& m : r.before)
    told = told || m.kind == outbound_kind::retry_wait;
  CHECK(told);
  CHECK(gw.llm.request_count() == 2);
}

TEST_CASE("messages sent while a turn runs wait and keep their order") {
  turns_gateway gw;
  gw.llm.set_responder([](const json& body) {
    auto r = fake_llm::echo(body);
    r.delay = std::chrono::milliseconds(100);
    return r;
  });
  caf::scoped_actor self{gw.rt->system()};
  for (auto text : {"first", "second", "third"}) {
    inbound_msg in;
    in.channel = "test";
    in.chat_id = "busy";
    in.content = text;
    in.reply_to = caf::actor_cast<outbound_sink>(self);
    self->send(gw.rt->router(), std::move(in));
  }
  std::vector<std::string> finals;
  while (finals.size() < 3)
    self->receive([&](outbound_msg& m) {
      if (m.kind == outbound_kind::final_reply)
        finals.push_back(m.content.substr(0, m.content.find('\n')));
    });
  CHECK(finals == std::vector<std::string>{"echo: first", "echo: second", "echo: third"});
  // Each turn saw the previous ones: the third request carries all history.
  auto third = gw.llm.requests().at(2).body.dump();
  CHECK(third.find("first") != std::string::npos);
  CHECK(third.find("second") != std::string::npos);
}

TEST_CASE("a session file poisoned by a null-named tool call works again") {
  turns_gateway gw;
  gw.say("setup");
  auto dir = *resolve_sessions_dir(gw.cfg);
  {
    std::ofstream out{dir + "/" + session_file_name("test:t1"), std::ios::app};
    out << R"({"role":"user","content":"do it"})" "\n";
    out << R"({"role":"assistant","content":null,"tool_calls":[{"id":"bad","type":"function","function":{"name":null,"arguments":"{}"}}]})" "\n";
    out << R"({"role":"tool","tool_call_id":"bad","name":null,"content":"?"})" "\n";
    out << R"({"role":"assistant","content":"done"})" "\n";
  }
  gw.rt.reset();
  gw.rt = std::make_unique<runtime>(gw.cfg);
  // Like real providers, the fake refuses requests with a nameless call.
  gw.llm.set_responder([](const json& body) {
    for (auto& m : body["messages"])
      if (m.contains("tool_calls"))
        for (auto& c : m["tool_calls"])
          if (!c["function"]["name"].is_string())
            return error(400, "tool call without a name");
    return fake_llm::echo(body);
  });
  auto r = gw.say("still there?");
  CHECK_FALSE(r.is_error);
  CHECK(r.content.rfind("echo: still there?", 0) == 0);
  // The file on disk is left as the user had it: only the copy sent is fixed.
  auto msgs = session_messages(gw.cfg, "test:t1");
  REQUIRE(msgs.size() == 8);
  CHECK(msgs[3]["tool_calls"][0]["function"]["name"].is_null());
}
