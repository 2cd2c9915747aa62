// API under slowloris: the real gateway process against a fake LLM that
// answers at once. Prints a normal client's completion latency (a fresh
// connection per request) with no other connection open, then with N slow
// connections open (headers never finished, from ten other loopback
// addresses). Usage: api_bench [requests, 200] [slow connections, 1000].
// NB_BENCH_BINARY runs another nanobot binary (an older build, to compare).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "tests/integration/child_process.hpp"
#include "tests/security/raw_http.hpp"
#include "tests/support/fake_llm.hpp"

using namespace std::chrono;
using nlohmann::json;
using nb::test::child_process;

namespace {

struct figures {
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  int failed = 0;
};

figures measure(int port, int n) {
  std::vector<double> ms;
  figures f;
  for (int i = 0; i < n; ++i) {
    httplib::Client cli{"127.0.0.1", port};
    cli.set_read_timeout(60, 0);
    cli.set_connection_timeout(60, 0);
    json body{{"model", "bench"},
              {"messages", {{{"role", "user"}, {"content", "hi"}}}},
              {"session_id", "bench-" + std::to_string(i / 10)}};
    auto t0 = steady_clock::now();
    auto res = cli.Post("/v1/chat/completions", body.dump(),
                        "application/json");
    ms.push_back(duration<double, std::milli>(steady_clock::now() - t0).count());
    if (!res || res->status != 200)
      ++f.failed;
  }
  std::sort(ms.begin(), ms.end());
  f.p50_ms = ms[ms.size() / 2];
  f.p99_ms = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  f.max_ms = ms.back();
  return f;
}

void print(const char* what, const figures& f) {
  std::printf("%-40s p50 %8.2f ms  p99 %8.2f ms  max %8.2f ms  failed %d\n",
              what, f.p50_ms, f.p99_ms, f.max_ms, f.failed);
}

} // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 200;
  int slow_count = argc > 2 ? std::atoi(argv[2]) : 1000;
  // Both ends of every slow connection live on this machine.
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
  const char* other = std::getenv("NB_BENCH_BINARY");
  auto binary = other ? std::string{other} : nb::test::nanobot_binary();
  std::string tmpl = "/tmp/nb-api-bench-XXXXXX";
  std::string home = mkdtemp(tmpl.data());
  nb::test::fake_llm llm;
  int api_port = nb::test::free_port();
  int gw_port = nb::test::free_port();
  json cfg{{"agents", {{"defaults", {{"workspace", home + "/ws"},
                                     {"model", "bench"},
                                     {"provider", "custom"}}}}},
           {"providers", {{"custom", {{"apiBase", llm.base_url()}}}}},
           {"api", {{"port", api_port}, {"timeout", 60}}},
           {"gateway", {{"port", gw_port}}}};
  std::filesystem::create_directories(home + "/ws");
  std::ofstream{home + "/config.json"} << cfg.dump();
  child_process gw{{binary, "gateway", "-c", home + "/config.json"}, home};
  if (!gw.wait_for_log("gateway ready", seconds(20))) {
    std::fprintf(stderr, "the gateway did not start:\n%s\n", gw.err().c_str());
    return 1;
  }
  measure(api_port, 20); // warm up
  auto idle = measure(api_port, n);
  std::vector<std::unique_ptr<nb::test::raw_conn>> slow;
  auto t0 = steady_clock::now();
  for (int i = 0; i < slow_count; ++i) {
    auto source = "127.0.0." + std::to_string(2 + i % 10);
    auto c = std::make_unique<nb::test::raw_conn>(
      static_cast<uint16_t>(api_port), source);
    if (c->connected())
      c->send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n");
    slow.push_back(std::move(c));
  }
  double open_ms = duration<double, std::milli>(steady_clock::now() - t0).count();
  auto loaded = measure(api_port, n);
  std::string title = "with " + std::to_string(slow_count) + " slow connections";
  std::printf("binary: %s\n", binary.c_str());
  std::printf("opening %d slow connections took %.0f ms\n", slow_count, open_ms);
  print("completion, no other connection", idle);
  print(title.c_str(), loaded);
  slow.clear();
  gw.signal(SIGTERM);
  gw.wait(seconds(20));
  std::filesystem::remove_all(home);
  return 0;
}
