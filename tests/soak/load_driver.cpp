// load_driver: many sessions through the real gateway's API at once.
//
//   load_driver --sessions 10000 --messages 3 --concurrency 200
//               --idle-seconds 20 [--out DIR]
//
// Each worker takes the next session and sends its messages one after the
// other, checking that every reply is its own ("echo: <that message>").
// Afterwards every session file must hold its user messages in order. It
// prints RSS before, at the end of the load (with the live sessions), per
// live session, and after the idle sessions have quit
// (gateway.sessionIdleSeconds) and their memory was given back. Exit code
// 0 only when nothing was lost, mixed up or reordered and the idle
// sessions all quit.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "config/load.hpp"
#include "tests/integration/child_process.hpp"
#include "tests/integration/harness.hpp"
#include "tests/soak/flag_pairs.hpp"
#include "tests/support/fake_llm.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace nb::test;
using clock_type = std::chrono::steady_clock;

namespace {

struct options {
  int sessions = 10000;
  int messages = 3;
  int concurrency = 200;
  int idle_s = 20;
  std::string out;
};

options parse(int argc, char** argv) {
  options o;
  for (auto& [name, value] : nb::soak::flag_pairs(argc, argv)) {
    if (name == "--sessions")
      o.sessions = std::stoi(value);
    else if (name == "--messages")
      o.messages = std::stoi(value);
    else if (name == "--concurrency")
      o.concurrency = std::stoi(value);
    else if (name == "--idle-seconds")
      o.idle_s = std::stoi(value);
    else if (name == "--out")
      o.out = value;
    else
      throw std::invalid_argument("unknown option " + name);
  }
  return o;
}

long rss_kb(pid_t pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/status"};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stol(line.substr(6));
  return 0;
}

/// A gauge from the gateway's /stats (-1 when it has none).
long gauge(int port, const char* name) {
  httplib::Client cli{"127.0.0.1", port};
  cli.set_read_timeout(10, 0);
  auto res = cli.Get("/stats");
  if (!res || res->status != 200)
    return -1;
  auto j = json::parse(res->body, nullptr, false);
  if (!j.is_object() || !j.contains("gauges"))
    return -1;
  return j["gauges"].value(name, -1L);
}

long live_sessions(int port) { return gauge(port, "sessions_live"); }

std::string text_of(int s, int m) {
  return "load-" + std::to_string(s) + " message " + std::to_string(m);
}

} // namespace

int main(int argc, char** argv) try {
  auto opt = parse(argc, argv);
  temp_home home;
  fake_llm llm{0, static_cast<size_t>(opt.concurrency) + 16};
  int api_port = free_port(), gw_port = free_port();
  json cfg{
    {"agents", {{"defaults", {{"workspace", (home.dir / "ws").string()},
                              {"model", "load-model"}}}}},
    {"providers", {{"custom", {{"apiBase", llm.base_url()}}}}},
    {"api", {{"port", api_port}, {"timeout", 300}}},
    {"gateway", {{"port", gw_port},
                 {"httpThreads", opt.concurrency + 16},
                 {"providerWorkers", std::min(opt.concurrency, 128)},
                 {"sessionIdleSeconds", opt.idle_s}}}};
  fs::create_directories(home.dir / "ws");
  auto config = (home.dir / "config.json").string();
  std::ofstream{config} << cfg.dump(2);
  child_process gw{{nanobot_binary(), "gateway", "-c", config}, home.dir.string()};
  if (!gw.wait_for_log("gateway ready", std::chrono::seconds(20)))
    throw std::runtime_error("the gateway did not start: " + gw.err());
  std::this_thread::sleep_for(std::chrono::seconds(1));
  auto rss_start = rss_kb(gw.pid());

  std::atomic<int> next{0};
  std::atomic<long> ok{0}, wrong{0}, failed{0};
  std::atomic<long> rss_peak{rss_start};
  // RSS when the most sessions were alive: the per-session figure.
  std::atomic<long> most_live{0}, rss_at_most{rss_start};
  std::atomic<bool> done{false};
  std::thread sampler{[&] {
    while (!done) {
      auto r = rss_kb(gw.pid());
      if (r > rss_peak)
        rss_peak = r;
      auto live = live_sessions(gw_port);
      if (live > most_live) {
        most_live = live;
        rss_at_most = r;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }};
  auto t0 = clock_type::now();
  std::vector<std::thread> workers;
  for (int w = 0; w < opt.concurrency; ++w)
    workers.emplace_back([&] {
      httplib::Client cli{"127.0.0.1", api_port};
      cli.set_read_timeout(300, 0);
      for (int s; (s = next++) < opt.sessions;)
        for (int m = 0; m < opt.messages; ++m) {
          json body{{"model", "load-model"},
                    {"messages", {{{"role", "user"}, {"content", text_of(s, m)}}}},
                    {"session_id", "load-" + std::to_string(s)}};
          auto res = cli.Post("/v1/chat/completions", body.dump(), "application/json");
          if (!res || res->status != 200) {
            ++failed;
            continue;
          }
          auto j = json::parse(res->body, nullptr, false);
          auto answer = j.is_object() ? j["choices"][0]["message"].value("content", "") : "";
          if (answer.rfind("echo: " + text_of(s, m), 0) == 0)
            ++ok;
          else
            ++wrong;
        }
    });
  for (auto& w : workers)
    w.join();
  double load_s = std::chrono::duration<double>(clock_type::now() - t0).count();
  auto rss_loaded = rss_kb(gw.pid());
  auto live = live_sessions(gw_port);
  done = true;
  sampler.join();

  // Every file holds its user messages, in order, once.
  auto settings = std::get<nb::loaded_settings>(nb::load_settings(config)).value;
  long bad_files = 0;
  for (int s = 0; s < opt.sessions; ++s) {
    std::vector<std::string> users;
    for (auto& m : session_messages(settings, "api:load-" + std::to_string(s)))
      if (m.value("role", "") == "user")
        users.push_back(m.value("content", ""));
    bool good = static_cast<int>(users.size()) == opt.messages;
    for (int m = 0; good && m < opt.messages; ++m)
      good = users[m] == text_of(s, m);
    bad_files += good ? 0 : 1;
  }

  // Idle sessions quit after gateway.sessionIdleSeconds (checked on their
  // idle tick) and their memory is trimmed back.
  auto idle_t0 = clock_type::now();
  long left = live;
  while (left != 0 && clock_type::now() - idle_t0
                        < std::chrono::seconds(opt.idle_s * 3 + 30)) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    left = live_sessions(gw_port);
  }
  double idle_wait = std::chrono::duration<double>(clock_type::now() - idle_t0).count();
  std::this_thread::sleep_for(std::chrono::seconds(4)); // the trimmer's quiet spell
  auto rss_idle = rss_kb(gw.pid());
  // What the program still holds (the trimmer's gauge, sent with each trim):
  // RSS far above it is the allocator's keeping, not the sessions'.
  auto heap_idle_kb = gauge(gw_port, "heap_in_use_kb");
  // NB_LOAD_HOLD_S keeps the idle gateway up that long (to attach a heap
  // profiler to pid <gateway pid>) before it is stopped.
  if (auto* hold = std::getenv("NB_LOAD_HOLD_S")) {
    std::printf("holding the idle gateway (pid %d) for %s s\n",
                static_cast<int>(gw.pid()), hold);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(std::atoi(hold)));
  }
  gw.signal(SIGTERM);
  int code = gw.wait(std::chrono::seconds(60));

  long total = static_cast<long>(opt.sessions) * opt.messages;
  std::printf("load: %d sessions x %d messages at %d concurrent in %.1f s "
              "(%.0f msg/s)\n",
              opt.sessions, opt.messages, opt.concurrency, load_s,
              total / load_s);
  std::printf("replies: %ld own, %ld someone else's, %ld failed; files out of "
              "order or incomplete: %ld\n",
              ok.load(), wrong.load(), failed.load(), bad_files);
  std::printf("RSS: %.1f MB at start, %.1f MB peak, %.1f MB after the load "
              "(%ld live sessions)\n",
              rss_start / 1024.0, rss_peak / 1024.0, rss_loaded / 1024.0, live);
  std::printf("per live session: %.1f KB (%.1f MB with %ld sessions alive, the "
              "most seen)\n",
              most_live > 0 ? double(rss_at_most - rss_start) / most_live : 0.0,
              rss_at_most / 1024.0, most_live.load());
  std::printf("idle: %ld sessions live after %.0f s (sessionIdleSeconds %d); "
              "RSS %.1f MB (%.1f MB given back)\n",
              left, idle_wait, opt.idle_s, rss_idle / 1024.0,
              (rss_loaded - rss_idle) / 1024.0);
  if (heap_idle_kb >= 0)
    std::printf("idle: heap in use %.1f MB (the rest of RSS is the "
                "allocator's)\n", heap_idle_kb / 1024.0);
  std::printf("SIGTERM: exit %d\n", code);
  bool good = ok == total && wrong == 0 && failed == 0 && bad_files == 0
              && left == 0 && code == 0;
  return good ? 0 : 1;
} catch (const std::exception& e) {
  std::cerr << "load_driver: " << e.what() << "\n";
  return 2;
}
