// The CLI Apps tests' rig: a scripted registry server on 127.0.0.1 with the
// original's three registry paths (one app, "drawit", in the main list;
// none in the public one; no extensions list), which can hold its main
// list's answer until the test lets it go; and the config file the WebUI's
// routes read.
#pragma once

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include <httplib.h>

#include "tests/support/config_file.hpp"
#include "tests/websocket/ws_gateway.hpp"

namespace nb::test {

struct cli_registry {
  httplib::Server svr;
  std::thread thread;
  int port = 0;
  std::mutex mu;
  std::condition_variable cv;
  bool released = true;
  int main_asked = 0; ///< requests for registry.json so far

  /// `entry_point`: drawit's command; `held`: registry.json waits for
  /// release() (60 s at most, so a failing test still ends).
  explicit cli_registry(const std::string& entry_point, bool held = false)
      : released(!held) {
    svr.Get("/registry.json", [this, entry_point](auto&,
                                                  httplib::Response& res) {
      std::unique_lock lock{mu};
      ++main_asked;
      cv.wait_for(lock, std::chrono::seconds(60), [this] { return released; });
      res.set_content(
        json{{"meta", {{"updated", "2026-12-01"}}},
             {"clis",
              {{{"name", "drawit"},
                {"display_name", "Draw It"},
                {"entry_point", entry_point},
                {"package_manager", "uv"},
                {"install_cmd", "uv tool install " + entry_point}}}}}
          .dump(),
        "application/json");
    });
    svr.Get("/public_registry.json", [](auto&, httplib::Response& res) {
      res.set_content(R"({"clis": []})", "application/json");
    });
    port = svr.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { svr.listen_after_bind(); });
    while (!svr.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  /// NANOBOT_CLI_APPS_REGISTRY for this server.
  std::string base() const {
    return "http://127.0.0.1:" + std::to_string(port);
  }

  int asked() {
    std::lock_guard lock{mu};
    return main_asked;
  }

  void release() {
    std::lock_guard lock{mu};
    released = true;
    cv.notify_all();
  }

  ~cli_registry() {
    release();
    svr.stop();
    thread.join();
  }
};

/// The gateway's config file as the WebUI's routes read it: the scripted
/// model, the WebSocket channel, and `tools`.
inline void write_cli_apps_config(gateway& gw,
                                  const json& tools = json::object()) {
  auto file = test::scripted_model_config(gw.cfg.agent.workspace,
                                          gw.cfg.providers["custom"].api_base);
  file["tools"] = tools;
  file["channels"] = {
    {"websocket", {{"enabled", true}, {"port", 0}, {"streaming", false}}}};
  std::ofstream{gw.cfg.config_path} << file.dump();
}

/// GET `path` from the WebUI's API: its JSON body (a 200 is required).
inline json api_get(httplib::Client& http, const std::string& path) {
  auto got = http.Get(path);
  REQUIRE(got);
  REQUIRE(got->status == 200);
  return json::parse(got->body);
}

} // namespace nb::test
