// Escapes from exec, tried through the real gateway: the scripted model
// makes the calls an attacker would (restrictToWorkspace on, the default).
// Each is refused or harmless: the provider key and the gateway's
// environment never appear in a tool result, nothing is written outside the
// workspace, the gateway survives, no process outlives its call, and a
// fork bomb ends with the gateway still answering.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <thread>

#include <httplib.h>
#include <openssl/evp.h>
#include <sys/stat.h>

#include "actors/tools/sandbox/sandbox_probe.hpp"
#include "tests/integration/child_process.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/proc_scan.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono;

namespace {

constexpr const char* provider_key = "sk-provider-canary-7f3a";
constexpr const char* env_key = "sk-environment-canary-91b2";

std::string b64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  auto n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                           reinterpret_cast<const unsigned char*>(in.data()),
                           static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

// "$(echo <base64> | base64 -d)": a word the guard cannot read.
std::string hidden(const std::string& text) {
  return "\"$(echo " + b64(text) + " | base64 -d)\"";
}

struct gateway_home {
  temp_home home;
  fake_llm llm;
  std::string config = (home.dir / "config.json").string();
  std::string ws = (home.dir / "workspace").string();
  int api_port = free_port();
  int gateway_port = free_port();

  gateway_home() {
    std::filesystem::create_directories(ws);
    json cfg{{"agents", {{"defaults", {{"workspace", ws}, {"model", "m"}}}}},
             {"providers",
              {{"custom", {{"apiBase", llm.base_url()},
                           {"apiKey", provider_key}}}}},
             {"tools", {{"restrictToWorkspace", true},
                        {"exec", {{"maxProcesses", 64}}}}},
             {"api", {{"port", api_port}}},
             {"gateway", {{"port", gateway_port}}}};
    std::ofstream{config} << cfg.dump(2);
  }

  child_process start() const {
    return child_process{{nanobot_binary(), "gateway", "-c", config},
                         home.dir.string(),
                         {std::string{"GATEWAY_SECRET_TOKEN="} + env_key}};
  }

  httplib::Result chat(const std::string& text, int timeout_s = 120) const {
    httplib::Client cli{"127.0.0.1", api_port};
    cli.set_read_timeout(timeout_s, 0);
    json body{{"model", "m"},
              {"messages", {{{"role", "user"}, {"content", text}}}},
              {"session_id", "attack"}};
    return cli.Post("/v1/chat/completions", body.dump(), "application/json");
  }

  bool healthy() const {
    httplib::Client cli{"127.0.0.1", gateway_port};
    cli.set_read_timeout(5, 0);
    auto r = cli.Get("/health");
    return r && r->status == 200;
  }
};

// The tool results the model was shown, by call id.
std::map<std::string, std::string> tool_results(const json& messages) {
  std::map<std::string, std::string> out;
  for (auto& m : messages)
    if (m.value("role", "") == "tool")
      out[m.value("tool_call_id", "")] = m["content"].dump();
  return out;
}

} // namespace

TEST_CASE("exec escapes through the gateway are refused or harmless") {
  gateway_home h;
  auto outside = (h.home.dir / "outside-pwned").string();
  auto stats = "http://127.0.0.1:" + std::to_string(h.gateway_port) + "/stats";
  std::vector<std::pair<std::string, std::string>> attacks{
    {"config_b64", "cat " + hidden(h.config)},
    {"environ", "cat " + hidden("/proc/") + "$PPID/environ; cat "
                  + hidden("/proc/1/environ")},
    {"environ_plain", "cat /proc/$PPID/environ"},
    {"python_write", "python3 -c \"import sys; open(sys.argv[1],'w')"
                     ".write('x')\" " + hidden(outside) + "; echo tried"},
    {"kill_parent", "kill -9 $PPID; kill -9 -1; echo still-here"},
    {"curl_stats", "curl -s -m 3 " + stats},
    {"curl_stats_hidden", "curl -s -m 3 " + hidden(stats) + "; echo rc=$?"},
    {"setsid_child", "setsid sleep 300 > /dev/null 2>&1 < /dev/null & "
                     "echo started"},
  };
  std::vector<fake_call> calls;
  for (auto& [id, cmd] : attacks)
    calls.push_back(call(id, "exec", json{{"command", cmd}}));
  h.llm.push(tool_calls(calls));
  h.llm.push(text("done"));
  auto gw = h.start();
  REQUIRE(gw.wait_for_log("gateway ready", seconds(15)));
  auto res = h.chat("try to get out");
  REQUIRE(res);
  CHECK(res->status == 200);
  REQUIRE(h.llm.requests().size() == 2);
  auto results = tool_results(h.llm.requests()[1].body["messages"]);
  REQUIRE(results.size() == attacks.size());
  for (auto& [id, content] : results) {
    CAPTURE(id);
    CAPTURE(content);
    CHECK(content.find(provider_key) == std::string::npos);
    CHECK(content.find(env_key) == std::string::npos);
  }
  CHECK(results["kill_parent"].find("still-here") != std::string::npos);
  CHECK(results["python_write"].find("tried") != std::string::npos);
  CHECK(results["curl_stats"].find("internal/private URL") != std::string::npos);
  CHECK(results["curl_stats_hidden"].find("\\\"turns\\\"") == std::string::npos);
  CHECK(results["setsid_child"].find("started") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(outside));
  // The gateway survived, and nothing its commands started is still there.
  CHECK(h.healthy());
  CHECK(descendants_named("sleep").empty());
  gw.signal(SIGTERM);
  CHECK(gw.wait(seconds(20)) == 0);
}

TEST_CASE("a fork bomb through the gateway is bounded and the gateway keeps answering") {
  gateway_home h;
  h.llm.push(tool_calls({call("bomb", "exec",
                              json{{"command", "b(){ b|b& };b"},
                                   {"timeout", 4}})}));
  h.llm.push(text("after the bomb"));
  auto gw = h.start();
  REQUIRE(gw.wait_for_log("gateway ready", seconds(15)));
  auto start = steady_clock::now();
  auto turn = std::async(std::launch::async, [&] { return h.chat("boom"); });
  size_t most = 0;
  milliseconds worst_health{0};
  while (turn.wait_for(milliseconds(50)) != std::future_status::ready) {
    auto t0 = steady_clock::now();
    CHECK(h.healthy());
    worst_health = std::max(worst_health, duration_cast<milliseconds>(
                                            steady_clock::now() - t0));
    auto family = family_of(gw.pid(), all_procs());
    most = std::max(most, family.size() - 1);
  }
  auto took = duration_cast<milliseconds>(steady_clock::now() - start);
  auto res = turn.get();
  MESSAGE("fork bomb: at most " << most << " processes under the gateway, "
          "turn took " << took.count() << " ms, slowest /health "
          << worst_health.count() << " ms");
  REQUIRE(res);
  CHECK(res->status == 200);
  if (!sandbox_status_for().process_limit.empty())
    CHECK(most <= 64 + 4);
  CHECK(descendants_named("bash").empty());
  CHECK(h.healthy());
  gw.signal(SIGTERM);
  CHECK(gw.wait(seconds(20)) == 0);
}

TEST_CASE("an agent working in the config dir never reads a key saved while "
          "its command runs") {
  if (!sandbox_status_for().available)
    return;
  // A listed agent's workspace is the config dir itself (main's may not
  // be): config.json sits beside its files, masked by a mount on the file.
  temp_home home;
  fake_llm llm;
  auto dir = (home.dir / "nb").string();
  std::filesystem::create_directories(dir);
  auto config = dir + "/config.json";
  int api_port = free_port();
  json cfg{{"agents",
            {{"defaults", {{"workspace", (home.dir / "main").string()},
                           {"model", "m"}}},
             {"list", {{{"id", "b"}, {"workspace", dir}}}},
             {"bindings", {{{"agent", "b"}, {"channel", "api"}}}}}},
           {"providers", {{"custom", {{"apiBase", llm.base_url()},
                                      {"apiKey", provider_key}}}}},
           {"api", {{"port", api_port}}},
           {"gateway", {{"port", free_port()}}}};
  std::ofstream{config} << cfg.dump(2);
  // Reads config.json (and where a save keeps its copy) every 50 ms.
  llm.push(tool_calls({call(
    "loop", "exec",
    json{{"command", "touch started; for i in $(seq 1 80); do grep -ho "
                     "'sk-[a-z0-9-]*' config.json .config-save/* "
                     "2>/dev/null; sleep 0.05; done; echo loop-done"},
         {"timeout", 60}})}));
  llm.push(text("done"));
  child_process gw{{nanobot_binary(), "gateway", "-c", config}, dir};
  REQUIRE(gw.wait_for_log("gateway ready", seconds(15)));
  CHECK(gw.wait_for_log("agent b: config.json is in exec's workspace",
                        seconds(5)));
  struct stat st{};
  REQUIRE(::stat(config.c_str(), &st) == 0);
  auto inode = st.st_ino;
  auto turn = std::async(std::launch::async, [&] {
    httplib::Client cli{"127.0.0.1", api_port};
    cli.set_read_timeout(120, 0);
    json body{{"model", "m"},
              {"messages", {{{"role", "user"}, {"content", "loop"}}}}};
    return cli.Post("/v1/chat/completions", body.dump(), "application/json");
  });
  auto until = steady_clock::now() + seconds(30);
  while (!std::filesystem::exists(dir + "/started")
         && steady_clock::now() < until)
    std::this_thread::sleep_for(milliseconds(10));
  REQUIRE(std::filesystem::exists(dir + "/started"));
  // Another process saves a key while the command runs: `nanobot provider
  // login`, the same save the WebUI's settings make.
  child_process login{{nanobot_binary(), "provider", "login", "custom", "-c",
                       config},
                      dir, {}, "sk-saved-while-running\n"};
  CHECK(login.wait(seconds(30)) == 0);
  REQUIRE(::stat(config.c_str(), &st) == 0);
  CHECK(st.st_ino == inode);
  std::ifstream saved{config};
  std::string text{std::istreambuf_iterator<char>{saved}, {}};
  CHECK(text.find("sk-saved-while-running") != std::string::npos);
  auto res = turn.get();
  REQUIRE(res);
  CHECK(res->status == 200);
  REQUIRE(llm.requests().size() == 2);
  auto results = tool_results(llm.requests()[1].body["messages"]);
  INFO(results["loop"]);
  CHECK(results["loop"].find("loop-done") != std::string::npos);
  CHECK(results["loop"].find("sk-") == std::string::npos);
  gw.signal(SIGTERM);
  CHECK(gw.wait(seconds(20)) == 0);
}
