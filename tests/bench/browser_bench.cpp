// Benchmark: the browser actor with real Chromium on pages served here.
// Prints the cold start to the first snapshot, warm click and snapshot
// latencies (p50, p90) and Chromium's RSS (its whole process group) with
// one and with eight pages open. Usage: browser_bench [rounds, default 50]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <caf/scoped_actor.hpp>

#include "actors/browser/browser.hpp"
#include "actors/browser/chromium.hpp"
#include "tests/support/system_fixture.hpp"
#include "tests/tools/http_servers.hpp"

using namespace nb;
using nlohmann::json;
using clk = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double ms_since(clk::time_point t) {
  return std::chrono::duration<double, std::milli>(clk::now() - t).count();
}

double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[static_cast<size_t>(p * (v.size() - 1))];
}

// Chromium's memory: the PSS of its process group, found by its profile.
int64_t chromium_pss(const std::string& profile_base) {
  std::error_code ec;
  for (auto& d : fs::directory_iterator("/proc", ec)) {
    std::ifstream in(d.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), {});
    if (cmd.find(profile_base) == std::string::npos
        || cmd.find("--type=") != std::string::npos)
      continue;
    return process_group_pss_bytes(std::atoi(d.path().filename().c_str()));
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 50;
  if (find_executable("chromium").empty()) {
    std::puts("chromium not found");
    return 1;
  }
  test::local_server web{"127.0.0.1"};
  web.svr.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(
      "<html><head><title>bench</title></head><body><h1>Counter</h1>"
      "<p id=n>0</p><button onclick=\"n.textContent=+n.textContent+1\">"
      "Add one</button><ul>"
        + [] {
            std::string items;
            for (int i = 0; i < 40; ++i)
              items += "<li><a href='#" + std::to_string(i) + "'>Item "
                       + std::to_string(i) + "</a></li>";
            return items;
          }()
        + "</ul></body></html>",
      "text/html");
  });
  web.start();
  auto home = fs::temp_directory_path() / ("nb-browser-bench-"
                                           + std::to_string(::getpid()));
  fs::create_directories(home / "workspace");
  browser_settings cfg;
  cfg.user_data_dir = (home / "chromium").string();
  cfg.max_tabs = 16;
  test::system_fixture fx;
  auto b = fx.sys.spawn<caf::detached>(browser_impl, cfg,
                                       std::vector<std::string>{"127.0.0.1/32"},
                                       (home / "workspace").string(),
                                       exec_watch_actor{}, stats_actor{});
  caf::scoped_actor self{fx.sys};
  int n = 0;
  auto run = [&](const std::string& key, json args) {
    tool_request req;
    req.session_key = key;
    req.call.id = "c" + std::to_string(++n);
    req.call.name = "browser";
    req.call.arguments_json
      = browser_envelope((home / "workspace").string(), args.dump());
    std::string out;
    self->request(b, std::chrono::seconds(120), req)
      .receive([&](tool_result& r) { out = r.content; },
               [&](caf::error& e) { out = "Error: " + caf::to_string(e); });
    return out;
  };
  auto url = "http://127.0.0.1:" + std::to_string(web.port) + "/";

  auto t0 = clk::now();
  auto first = run("s", {{"action", "open"}, {"url", url}});
  double cold = ms_since(t0);
  if (first.find("Counter") == std::string::npos) {
    std::printf("open failed: %s\n", first.c_str());
    caf::anon_send_exit(b, caf::exit_reason::user_shutdown);
    return 1;
  }
  std::smatch m;
  std::regex_search(first, m, std::regex{R"(button "Add one" \[ref=(\d+)\])"});
  int button = std::stoi(m[1]);
  int64_t rss1 = chromium_pss(cfg.user_data_dir);

  std::vector<double> clicks, snaps;
  for (int i = 0; i < rounds; ++i) {
    auto t = clk::now();
    run("s", {{"action", "click"}, {"ref", button}});
    clicks.push_back(ms_since(t));
    t = clk::now();
    auto s = run("s", {{"action", "snapshot"}});
    snaps.push_back(ms_since(t));
    std::regex_search(s, m, std::regex{R"(button "Add one" \[ref=(\d+)\])"});
    button = std::stoi(m[1]);
  }
  for (int i = 1; i < 8; ++i)
    run("s", {{"action", "open"}, {"url", url}});
  int64_t rss8 = chromium_pss(cfg.user_data_dir);

  std::printf("browser_bench (%d rounds, Chromium %s)\n", rounds,
              find_executable("chromium").c_str());
  std::printf("  cold start to first snapshot: %.0f ms\n", cold);
  std::printf("  warm click:    p50 %.1f ms  p90 %.1f ms\n", pct(clicks, .5),
              pct(clicks, .9));
  std::printf("  warm snapshot: p50 %.1f ms  p90 %.1f ms\n", pct(snaps, .5),
              pct(snaps, .9));
  std::printf("  Chromium memory (PSS of its process group): 1 page %.0f MB, 8 pages %.0f MB\n",
              rss1 / 1048576.0, rss8 / 1048576.0);
  caf::anon_send_exit(b, caf::exit_reason::user_shutdown);
  self->wait_for(b);
  std::error_code ec;
  fs::remove_all(home, ec);
  return 0;
}
