// exec's cost per call, with and without the bubblewrap sandbox and per
// network mode: `exec true` through the tool registry, N times each.
// Run on demand: build/tests/bench/exec_bench [calls]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "actors/tools/registry.hpp"
#include "actors/tools/sandbox/sandbox_probe.hpp"
#include "actors/tools/sandbox/sandboxed_run.hpp"
#include "actors/tools/sandbox/warm_sandbox_pool.hpp"

using namespace nb;

namespace {

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

// `once()` returns an error text ("" = fine); `before()` runs untimed
// ahead of each call.
template <class Once, class Before>
void measure(const char* label, int calls, Once once, Before before) {
  std::vector<double> ms;
  for (int i = 0; i < calls; ++i) {
    before();
    auto t0 = std::chrono::steady_clock::now();
    auto error = once();
    ms.push_back(std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now() - t0)
                   .count());
    if (!error.empty()) {
      std::printf("%-34s failed: %s\n", label, error.c_str());
      return;
    }
  }
  std::printf("%-34s p50 %6.2f ms   p90 %6.2f ms   max %6.2f ms\n", label,
              percentile(ms, 0.5), percentile(ms, 0.9),
              percentile(ms, 1.0));
}

template <class Once>
void measure(const char* label, int calls, Once once) {
  measure(label, calls, once, [] {});
}

} // namespace

int main(int argc, char** argv) {
  int calls = argc > 1 ? std::atoi(argv[1]) : 50;
  char tmpl[] = "/tmp/nb-exec-bench-XXXXXX";
  std::string ws = ::mkdtemp(tmpl);
  settings cfg;
  cfg.agent.workspace = ws;
  auto reg = make_builtin_registry(cfg);
  auto ctx = make_tool_context(cfg);
  auto& s = sandbox_status_for();
  std::printf("exec true, %d calls each; sandbox: %s\n", calls,
              describe_sandbox(cfg, s).c_str());
  auto exec_true = [&] {
    auto out = reg.execute(tool_call{"b", "exec", R"({"command":"true"})"},
                           ctx);
    return out.is_error ? out.content : std::string{};
  };
  ctx.restrict_to_workspace = false;
  measure("exec, no sandbox", calls, exec_true);
  ctx.restrict_to_workspace = true;
  measure("exec, sandbox (loopback-denied)", calls, exec_true);
  // With the front's warm sandboxes: the first call starts cold (and has
  // the next one prepared); the following ones, each once its sandbox
  // waits (a model's turn is far longer than the preparation), run warm.
  auto pool = std::make_shared<warm_sandbox_pool>();
  ctx.warm_sandboxes = pool;
  measure("exec, sandbox, warm pool: 1st call", 1, exec_true);
  auto wait_warm = [&] {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (pool->counters().waiting.empty()
           && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  measure("exec, sandbox, warm pool: next", calls, exec_true, wait_warm);
  auto f = pool->counters();
  std::printf("  warm pool: %llu prepared, %llu taken, %llu dropped\n",
              static_cast<unsigned long long>(f.prepared),
              static_cast<unsigned long long>(f.taken),
              static_cast<unsigned long long>(f.dropped));
  ctx.warm_sandboxes = nullptr;
  pool.reset();
  // The sandbox alone, per network mode (bash -c true).
  for (auto net : {"host", "none", "loopback-denied"}) {
    sandbox_request req;
    req.workspace = ws;
    req.cwd = ws;
    req.network = net;
    measure((std::string{"sandbox only, network "} + net).c_str(), calls,
            [&] {
              process_options o;
              o.program = "/bin/bash";
              o.argv = {"/bin/bash", "-c", "true"};
              o.env = {"PATH=/usr/bin:/bin", "HOME=" + ws};
              o.cwd = ws;
              o.timeout_s = 10;
              auto r = run_sandboxed(o, req, s);
              return r.error.empty() && r.exit_code == 0
                       ? std::string{}
                       : r.error + r.err.head;
            });
  }
  std::filesystem::remove_all(ws);
  return 0;
}
