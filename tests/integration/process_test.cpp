// The nanobot executable as users run it: real child processes, real ports.
#include <doctest/doctest.h>

#include <csignal>
#include <fstream>
#include <future>
#include <thread>

#include <httplib.h>

#include "config/load.hpp"
#include "tests/integration/child_process.hpp"
#include "tests/integration/gateway_home.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/proc_scan.hpp"
#include "tests/support/promtool.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

TEST_CASE("a gateway killed mid-turn keeps the user message and recovers") {
  fake_llm llm;
  home_with_config h{custom_provider(llm)};
  auto stalled = stream_text({"partial"});
  stalled.stall = true;
  llm.push(stalled);
  {
    auto gw = h.start_gateway();
    REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
    auto pending = std::async(std::launch::async,
                              [&] { return h.post_chat("keep this safe", "durable", 60); });
    for (int i = 0; i < 500 && llm.request_count() == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(llm.request_count() == 1);
    gw.signal(SIGKILL);
    CHECK(gw.wait(std::chrono::seconds(10)) == 128 + SIGKILL);
    pending.wait();
  }
  auto cfg = h.loaded();
  auto before = session_messages(cfg, "api:durable");
  REQUIRE(before.size() == 1);
  CHECK(before[0]["role"] == "user");
  CHECK(before[0]["content"] == "keep this safe");

  auto gw = h.start_gateway();
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
  auto res = h.post_chat("are you back?", "durable");
  REQUIRE(res);
  CHECK(res->status == 200);
  auto answer = json::parse(res->body)["choices"][0]["message"]["content"];
  CHECK(answer.get<std::string>().rfind("echo: are you back?", 0) == 0);
  auto after = session_messages(cfg, "api:durable");
  REQUIRE(after.size() == 4);
  CHECK(after[1]["role"] == "assistant"); // the interruption note
  CHECK(after[2]["content"] == "are you back?");
  // The model saw a legal transcript: the old question, a closed turn, the new one.
  auto msgs = llm.requests().back().body["messages"];
  CHECK(msgs[1]["content"] == "keep this safe");
  CHECK(msgs[2]["role"] == "assistant");
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(20)) == 0);
}

TEST_CASE("a gateway killed after an injection keeps the injected message") {
  fake_llm llm;
  home_with_config h{custom_provider(llm)};
  llm.push(tool_calls({call("nap", "exec", json{{"command", "sleep 3"}})}));
  auto stalled = stream_text({"partial"});
  stalled.stall = true; // the model call after the injection never ends
  llm.push(stalled);
  {
    auto gw = h.start_gateway();
    REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
    auto first = std::async(std::launch::async,
                            [&] { return h.post_chat("start the job", "inj", 60); });
    for (int i = 0; i < 1000 && llm.request_count() == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(llm.request_count() == 1);
    // The exec call sleeps: this message waits and is injected after it.
    auto second = std::async(std::launch::async,
                             [&] { return h.post_chat("do not forget me", "inj", 60); });
    for (int i = 0; i < 3000 && llm.request_count() < 2; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(llm.request_count() == 2);
    CHECK(llm.requests()[1].body["messages"].dump().find("do not forget me")
          != std::string::npos);
    gw.signal(SIGKILL);
    CHECK(gw.wait(std::chrono::seconds(10)) == 128 + SIGKILL);
    first.wait();
    second.wait();
  }
  auto cfg = h.loaded();
  auto before = session_messages(cfg, "api:inj");
  REQUIRE(before.size() == 2);
  CHECK(before[0]["content"] == "start the job");
  CHECK(before[1]["role"] == "user");
  CHECK(before[1]["content"] == "do not forget me");

  auto gw = h.start_gateway();
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
  auto res = h.post_chat("are you back?", "inj");
  REQUIRE(res);
  CHECK(res->status == 200);
  auto answer = json::parse(res->body)["choices"][0]["message"]["content"];
  CHECK(answer.get<std::string>().rfind("echo: are you back?", 0) == 0);
  auto after = session_messages(cfg, "api:inj");
  REQUIRE(after.size() == 5);
  CHECK(after[1]["content"] == "do not forget me"); // the user's text stays
  CHECK(after[2]["role"] == "assistant");           // the interruption note
  CHECK(after[3]["content"] == "are you back?");
  auto msgs = llm.requests().back().body["messages"].dump();
  CHECK(msgs.find("do not forget me") != std::string::npos);
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(20)) == 0);
}

TEST_CASE("without a provider the gateway starts and every chat says what to configure") {
  home_with_config h{json::object()};
  auto gw = h.start_gateway();
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
  httplib::Client health{"127.0.0.1", h.gateway_port};
  auto hr = health.Get("/health");
  REQUIRE(hr);
  CHECK(hr->status == 200);
  auto res = h.post_chat("hello?", "x");
  REQUIRE(res);
  CHECK(res->status >= 400);
  CHECK(res->body.find("providers.") != std::string::npos);
  auto status = run({nanobot_binary(), "status", "-c", h.config}, h.home.dir.string());
  CHECK(status.code == 0);
  CHECK(status.out.find("not ready") != std::string::npos);
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(20)) == 0);
  CHECK(gw.err().find("stopped cleanly") != std::string::npos);
}

TEST_CASE("the gateway serves stats and metrics about the turns it ran") {
  fake_llm llm;
  home_with_config h{custom_provider(llm)};
  auto gw = h.start_gateway();
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
  REQUIRE(h.post_chat("one", "a"));
  REQUIRE(h.post_chat("two", "b"));
  httplib::Client cli{"127.0.0.1", h.gateway_port};
  json stats;
  for (int i = 0; i < 50; ++i) { // samples arrive asynchronously
    auto r = cli.Get("/stats");
    REQUIRE(r);
    stats = json::parse(r->body);
    if (stats["turns"]["by_outcome"].value("completed", 0) == 2)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(stats["turns"]["by_outcome"]["completed"] == 2);
  CHECK(stats["actors"]["session"]["live"] == 2);
  CHECK(stats["provider"]["calls_ok"] == 2);
  CHECK(stats["rss_bytes"].get<int64_t>() > 0);
  auto m = cli.Get("/metrics");
  REQUIRE(m);
  CHECK(m->body.find("nanobot_") != std::string::npos);
  gw.signal(SIGINT);
  CHECK(gw.wait(std::chrono::seconds(20)) == 0);
}

TEST_CASE("an idle gateway holds no thread for work it does once in a while") {
  // The heartbeat, the evaluator, the memory trimmer, the pairing file and
  // the file store's lease keeper do file work now and then, on threads
  // that exist only while it runs (issue 22: idle threads exit).
  fake_llm llm;
  int ws_port = free_port();
  home_with_config h{
    custom_provider(llm),
    json{{"channels", {{"websocket", {{"enabled", true}, {"port", ws_port},
                                      {"allowFrom", {"*"}}}}}}}};
  auto gw = h.start_gateway();
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
  // SQLite is opened by the memory index, which the first turn reaches.
  CHECK(nb::test::read_all("/proc/" + std::to_string(gw.pid()) + "/maps")
          .find("libsqlite3") == std::string::npos);
  REQUIRE(h.post_chat("one", "a"));
  // Channels start after "ready" (the manager reads pairing.json first):
  // the WebUI answers once its channel runs.
  httplib::Client webui{"127.0.0.1", ws_port};
  auto webui_answers = [&] {
    for (int i = 0; i < 200; ++i) {
      if (auto page = webui.Get("/"))
        return page->status < 500;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  };
  REQUIRE(webui_answers());
  const std::vector<std::string> transient{
    "nb.heartbeat", "nb.evaluator", "nb.trim", "nb.pairing", "nb.lease"};
  auto names = thread_names(gw.pid());
  auto any_left = [&] {
    for (const auto& n : transient)
      if (names.count(n) > 0)
        return true;
    return false;
  };
  // The pairing file is read at start on such a thread: it ends with it.
  for (int i = 0; i < 100 && any_left(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    names = thread_names(gw.pid());
  }
  std::string listed;
  long total = 0;
  for (const auto& [name, n] : names) {
    listed += name + "=" + std::to_string(n) + " ";
    total += n;
  }
  MESSAGE("idle gateway threads (" << total << "): " << listed);
  for (const auto& n : transient)
    CHECK_MESSAGE(names.count(n) == 0, n << " is still running");
  // The main thread serves the API (no nb.api until the shutdown) and the
  // WebSocket channel's actor lives on the scheduler (no nb.websocket);
  // the inbox's file worker retires after 30 s idle (inbox_test).
  CHECK(names.count("nb.api") == 0);
  CHECK(names.count("nb.websocket") == 0);
  // libcurl (the Email channel), libpq (the PostgreSQL store) and libedit
  // (the terminal chat), with all they link, are opened only by the
  // features that use them; CAF's network layer is nanobot-node's alone.
  auto maps = nb::test::read_all("/proc/" + std::to_string(gw.pid()) + "/maps");
  for (std::string library : {"libcurl", "libpq", "libgnutls", "libldap",
                              "libedit", "libcaf_io", "libcaf_openssl"})
    CHECK_MESSAGE(maps.find(library) == std::string::npos,
                  library << " is mapped");
  // ... and both are served all the same.
  REQUIRE(h.post_chat("two", "b"));
  CHECK(webui_answers());
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(20)) == 0);
}

TEST_CASE("the gateway's /metrics follows Prometheus conventions") {
  fake_llm llm;
  home_with_config h{custom_provider(llm)};
  llm.push(tool_calls({call("c1", "list_dir", json{{"path", "."}})}));
  auto gw = h.start_gateway();
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
  REQUIRE(h.post_chat("look around", "m"));
  httplib::Client cli{"127.0.0.1", h.gateway_port};
  std::string text;
  for (int i = 0; i < 50; ++i) { // samples arrive asynchronously
    auto r = cli.Get("/metrics");
    REQUIRE(r);
    text = r->body;
    if (text.find("nanobot_tool_seconds_count{tool=\"list_dir\"} 1") != std::string::npos
        && text.find("nanobot_turns_total{outcome=\"completed\"} 1") != std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  auto has = [&](const std::string& part) { return text.find(part) != std::string::npos; };
  CHECK(has("# TYPE nanobot_turn_seconds summary\n"));
  CHECK(has("\nnanobot_turn_seconds_count 1\n"));
  CHECK(has("\nnanobot_turn_seconds_sum "));
  CHECK(has("\nnanobot_turn_seconds{quantile=\"0.99\"} "));
  CHECK(has("# TYPE nanobot_provider_latency_seconds summary\n"));
  CHECK(has("\nnanobot_provider_latency_seconds_count 2\n"));
  CHECK(has("# TYPE nanobot_tool_seconds summary\n"));
  CHECK(has("\nnanobot_tool_seconds_count{tool=\"list_dir\"} 1\n"));
  CHECK(has("\nnanobot_tool_calls_total{tool=\"list_dir\"} 1\n"));
  CHECK(has("# TYPE nanobot_turn_state_seconds summary\n"));
  CHECK(has("# TYPE nanobot_actor_handling_seconds summary\n"));
  CHECK(has("\nnanobot_provider_calls_total{result=\"ok\"} 2\n"));
  CHECK(has("# TYPE nanobot_inbox_appended_total counter\n"));
  CHECK(has("# TYPE nanobot_workspace_rebuilds_total counter\n"));
  CHECK(has("\nnanobot_resident_memory_bytes "));
  CHECK(has("\nnanobot_uptime_seconds "));
  // Every counter is named *_total.
  for (size_t at = text.find("# TYPE "); at != std::string::npos;
       at = text.find("# TYPE ", at + 1)) {
    auto line = text.substr(at, text.find('\n', at) - at);
    if (line.ends_with(" counter")) {
      CAPTURE(line);
      CHECK(line.find("_total counter") != std::string::npos);
    }
  }
  if (auto said = promtool_check(text)) {
    CAPTURE(text);
    CHECK(*said == "");
  } else {
    MESSAGE("promtool is not installed: the lint of /metrics is skipped");
  }
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(20)) == 0);
}

TEST_CASE("the API refuses requests without the configured key") {
  fake_llm llm;
  home_with_config h{custom_provider(llm), {{"api", {{"apiKey", "k-123"}}}}};
  auto gw = h.start_gateway();
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(10)));
  auto res = h.post_chat("hi", "x");
  REQUIRE(res);
  CHECK(res->status == 401);
  httplib::Client cli{"127.0.0.1", h.api_port};
  cli.set_bearer_token_auth("k-123");
  auto ok = cli.Post("/v1/chat/completions",
                     R"({"messages":[{"role":"user","content":"hi"}]})",
                     "application/json");
  REQUIRE(ok);
  CHECK(ok->status == 200);
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(20)) == 0);
}

TEST_CASE("config errors stop every command and name the key") {
  temp_home home;
  auto dir = home.dir.string();
  auto path = dir + "/config.json";
  std::ofstream{path} << R"({"agents": {"defaults": {"maxTokens": "lots"}}})";
  for (auto cmd : {"status", "gateway", "agent"}) {
    auto r = run({nanobot_binary(), cmd, "-c", path, "-m", "x"}, dir);
    CAPTURE(cmd);
    CHECK(r.code == 2);
    CHECK(r.err.find("agents.defaults.maxTokens") != std::string::npos);
  }
  std::ofstream{path} << R"({"agents": )";
  auto broken = run({nanobot_binary(), "status", "-c", path}, dir);
  CHECK(broken.code == 2);
  CHECK(broken.err.find("line") != std::string::npos);
  std::ofstream{path} << R"({"api": {"host": "0.0.0.0"}})";
  auto open = run({nanobot_binary(), "gateway", "-c", path}, dir);
  CHECK(open.code == 2);
  CHECK(open.err.find("api.apiKey") != std::string::npos);
}

TEST_CASE("nanobot agent answers one message using tools") {
  fake_llm llm;
  home_with_config h{custom_provider(llm)};
  std::ofstream{(h.home.dir / "ws" / "plan.md").string()} << "# plan\n";
  llm.push(tool_calls({call("c1", "list_dir", json{{"path", "."}})}));
  llm.push(text("The workspace holds plan.md."));
  auto r = run({nanobot_binary(), "agent", "-c", h.config, "-m",
                "list the files in the workspace"},
               h.home.dir.string());
  CHECK(r.code == 0);
  CHECK(r.out.find("The workspace holds plan.md.") != std::string::npos);
  CHECK(r.err.find("list_dir") != std::string::npos);
  auto tool_msg = llm.requests().at(1).body["messages"].back();
  CHECK(tool_msg["content"].get<std::string>().find("plan.md") != std::string::npos);
}

TEST_CASE("interactive nanobot agent chats until exit") {
  fake_llm llm;
  home_with_config h{custom_provider(llm)};
  child_process chat{{nanobot_binary(), "agent", "-c", h.config},
                     h.home.dir.string(), {},
                     "hello there\nand again\nexit\nnot sent\n"};
  CHECK(chat.wait(std::chrono::seconds(30)) == 0);
  CHECK(chat.out().find("echo: hello there") != std::string::npos);
  CHECK(chat.out().find("echo: and again") != std::string::npos);
  CHECK(llm.request_count() == 2);
  // The default session is cli:direct and it was saved.
  CHECK(session_messages(h.loaded(), "cli:direct").size() == 4);
}

TEST_CASE("onboard writes a config and a workspace and never overwrites") {
  temp_home home;
  auto dir = home.dir.string();
  child_process first{{nanobot_binary(), "onboard"}, dir, {"HOME=" + dir}};
  CHECK(first.wait(std::chrono::seconds(20)) == 0);
  auto cfg = dir + "/.nanobot/config.json";
  REQUIRE(std::filesystem::exists(cfg));
  CHECK(std::filesystem::exists(dir + "/.nanobot/workspace/AGENTS.md"));
  std::ofstream{dir + "/.nanobot/workspace/USER.md"} << "mine\n";
  child_process second{{nanobot_binary(), "onboard"}, dir, {"HOME=" + dir}};
  CHECK(second.wait(std::chrono::seconds(20)) == 0);
  std::ifstream in{dir + "/.nanobot/workspace/USER.md"};
  std::string line;
  std::getline(in, line);
  CHECK(line == "mine");
  CHECK(second.out().find("kept") != std::string::npos);
}
