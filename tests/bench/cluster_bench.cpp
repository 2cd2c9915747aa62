// Cluster benchmark: the real node processes on loopback against a fake LLM
// that answers at once. Prints turn latency with the session on the gateway
// itself vs on an agent node (and with one tool call per turn, tools local
// vs on a tools node), and throughput at 64 sessions with 1 vs 2 agent
// nodes. Run on demand: build-wt/tests/bench/cluster_bench [turns].
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "tests/cluster/cluster_fixture.hpp"

using namespace std::chrono;
using nlohmann::json;

namespace {

struct figures {
  double p50_us = 0, p99_us = 0, per_s = 0;
  int failures = 0;
};

figures hammer(int port, int clients, int per_client, const std::string& tag) {
  std::vector<std::vector<double>> lat(clients);
  std::atomic<int> failures{0};
  auto t0 = steady_clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      httplib::Client cli{"127.0.0.1", port};
      cli.set_tcp_nodelay(true);
      cli.set_read_timeout(60, 0);
      for (int i = 0; i < per_client; ++i) {
        json b{{"model", "bench"},
               {"messages", {{{"role", "user"}, {"content", "hi"}}}},
               {"session_id", tag + std::to_string(c) + "-" + std::to_string(i / 10)}};
        auto s = steady_clock::now();
        auto r = cli.Post("/v1/chat/completions", b.dump(), "application/json");
        if (!r || r->status != 200)
          ++failures;
        lat[c].push_back(duration<double, std::micro>(steady_clock::now() - s).count());
      }
    });
  for (auto& t : threads)
    t.join();
  double wall = duration<double>(steady_clock::now() - t0).count();
  std::vector<double> all;
  for (auto& v : lat)
    all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  figures f;
  f.p50_us = all[all.size() / 2];
  f.p99_us = all[std::min(all.size() - 1, all.size() * 99 / 100)];
  f.per_s = all.size() / wall;
  f.failures = failures;
  return f;
}

void print(const char* what, const figures& f) {
  std::printf("%-52s p50 %7.0f us  p99 %7.0f us  %7.0f /s%s\n", what, f.p50_us,
              f.p99_us, f.per_s, f.failures ? "  (failures!)" : "");
}

/// One list_dir call per turn, then the answer.
nb::test::fake_response tool_turn(const json& body) {
  auto& last = body["messages"].back();
  if (last.value("role", "") == "tool")
    return nb::test::text("done");
  return nb::test::tool_calls({nb::test::call("c1", "list_dir", json{{"path", "."}})});
}

} // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 500;
  nb::test::fake_llm llm{0, 160};
  nb::test::loopback_cluster c{llm, 2, true, false};
  c.start_gateway();
  auto port = c.api_port();
  hammer(port, 1, 30, "warm");
  auto local = hammer(port, 1, n, "l");
  llm.set_responder(tool_turn);
  auto local_tool = hammer(port, 1, n / 2, "lt");
  llm.set_responder(nb::test::fake_llm::echo);
  auto local64 = hammer(port, 64, std::max(1, n / 16), "l64-");

  c.start_agent(1);
  hammer(port, 1, 30, "warm1");
  auto remote = hammer(port, 1, n, "r");
  llm.set_responder(tool_turn);
  auto remote_tool_local = hammer(port, 1, n / 2, "rt");
  llm.set_responder(nb::test::fake_llm::echo);
  auto one64 = hammer(port, 64, std::max(1, n / 16), "a1-");

  c.start_agent(2);
  hammer(port, 1, 30, "warm2");
  auto two64 = hammer(port, 64, std::max(1, n / 16), "a2-");

  c.start_tools();
  std::this_thread::sleep_for(milliseconds(500));
  llm.set_responder(tool_turn);
  auto remote_tool_remote = hammer(port, 1, n / 2, "rtt");

  std::printf("\nnanobot-cpp cluster benchmark (%d turns per 1-client figure)\n\n", n);
  print("turn, session on the gateway node", local);
  print("turn, session on an agent node", remote);
  print("turn + 1 tool call, all on the gateway node", local_tool);
  print("turn + 1 tool call, agent node, local tools", remote_tool_local);
  print("turn + 1 tool call, agent node -> tools node", remote_tool_remote);
  print("64 sessions, gateway node alone", local64);
  print("64 sessions, 1 agent node", one64);
  print("64 sessions, 2 agent nodes", two64);
  std::printf("\nremote session overhead per turn (p50)           %7.0f us\n",
              remote.p50_us - local.p50_us);
  std::printf("remote tools overhead per tool turn (p50)        %7.0f us\n",
              remote_tool_remote.p50_us - remote_tool_local.p50_us);
  std::printf("throughput 2 vs 1 agent nodes                    %7.2f x\n",
              two64.per_s / one64.per_s);
  return 0;
}
