// Turn profiler's driver: starts a gateway (the given binary, optionally
// under a wrapper such as callgrind) against the fake LLM and runs windows
// of plain turns, calling `on_window` hooks between them so a profiler can
// count each window apart. Prints the gateway's CPU per turn per window.
//   turn_probe <nanobot> <long turns> [wrapper words...]
// With "callgrind" as the wrapper, the gateway runs under
// valgrind --tool=callgrind with instrumentation switched on only in the
// measured windows; the dumps are <home>/cg.out.<n>.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "tests/integration/child_process.hpp"
#include "tests/support/fake_llm.hpp"
#include "tests/support/proc_scan.hpp"

using namespace std::chrono;
using nlohmann::json;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: turn_probe <nanobot> <long turns> [callgrind]\n";
    return 2;
  }
  std::string binary = argv[1];
  int n = std::atoi(argv[2]);
  bool cg = argc > 3 && std::string{argv[3]} == "callgrind";
  const char* base = std::getenv("NB_BENCH_DIR");
  std::string tmpl = std::string{base ? base : "/tmp"} + "/nb-probe-XXXXXX";
  std::string home = mkdtemp(tmpl.data());
  nb::test::fake_llm llm{0, 16};
  // NB_BENCH_THREADS: CAF scheduler threads (0 = the gateway's default), as
  // kernel_bench reads it.
  const char* threads_env = std::getenv("NB_BENCH_THREADS");
  int scheduler_threads = threads_env ? std::atoi(threads_env) : 0;
  int api_port = nb::test::free_port();
  int gw_port = nb::test::free_port();
  json cfg{{"agents", {{"defaults", {{"workspace", home + "/ws"},
                                     {"model", "bench"}, {"provider", "custom"}}}}},
           {"providers", {{"custom", {{"apiBase", llm.base_url()}}}}},
           {"api", {{"port", api_port}, {"timeout", 600}}},
           {"gateway", {{"port", gw_port}, {"schedulerThreads", scheduler_threads}}}};
  std::filesystem::create_directories(home + "/ws");
  std::ofstream{home + "/config.json"} << cfg.dump();
  std::vector<std::string> argv_gw;
  if (cg)
    argv_gw = {"/usr/bin/valgrind", "--tool=callgrind", "--instr-atstart=no",
               "--callgrind-out-file=" + home + "/cg.out"};
  argv_gw.insert(argv_gw.end(), {binary, "gateway", "-c", home + "/config.json"});
  nb::test::child_process gw{argv_gw, home};
  httplib::Client health{"127.0.0.1", gw_port};
  health.set_connection_timeout(1, 0);
  while (!health.Get("/health"))
    std::this_thread::sleep_for(milliseconds(20));
  httplib::Client api{"127.0.0.1", api_port};
  api.set_tcp_nodelay(true);
  api.set_read_timeout(600, 0);
  int failures = 0;
  auto turn = [&](const std::string& session) {
    json b{{"model", "bench"},
           {"messages", {{{"role", "user"}, {"content", "hi"}}}},
           {"session_id", session}};
    auto r = api.Post("/v1/chat/completions", b.dump(), "application/json");
    if (!r || r->status != 200)
      ++failures;
  };
  auto control = [&](const std::string& what) {
    if (!cg)
      return;
    std::system(("callgrind_control " + what + " " + std::to_string(gw.pid())
                 + " >/dev/null")
                  .c_str());
  };
  auto window = [&](const char* name, int turns, auto run) {
    control("-z");
    control("-i on");
    double cpu0 = nb::test::cpu_ms(gw.pid());
    auto t0 = steady_clock::now();
    for (int i = 0; i < turns; ++i)
      run(i);
    double wall = duration<double, std::milli>(steady_clock::now() - t0).count();
    double cpu = nb::test::cpu_ms(gw.pid()) - cpu0;
    control("-i off");
    control(std::string{"-d "} + name);
    std::printf("%-28s %5d turns  CPU %7.3f ms/turn  wall %7.3f ms/turn"
                "  (%d failed so far)\n",
                name, turns, cpu / turns, wall / turns, failures);
    std::fflush(stdout);
  };
  for (int i = 0; i < 30; ++i)
    turn("warm-" + std::to_string(i / 10));
  int w = std::max(1, n / 10);
  window("short-sessions", w, [&](int i) { turn("s-" + std::to_string(i / 10)); });
  window("long-first-tenth", w, [&](int) { turn("long"); });
  for (int i = 0; i < n - 2 * w; ++i)
    turn("long");
  window("long-last-tenth", w, [&](int) { turn("long"); });
  gw.signal(SIGTERM);
  gw.wait(seconds(120));
  std::printf("home %s\n", home.c_str());
  return 0;
}
