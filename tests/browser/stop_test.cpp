// Browser: /stop reaches a running browser action through the exec watch,
// as it reaches a running exec; the browser is free for the next call.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <future>

#include <caf/scoped_actor.hpp>

#include "actors/browser/browser.hpp"
#include "actors/browser/chromium.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using nlohmann::json;
namespace fs = std::filesystem;

TEST_CASE("stop ends a running browser action and the next call works") {
  if (find_executable("chromium").empty()) {
    MESSAGE("chromium is not installed: skipped");
    return;
  }
  auto home = fs::temp_directory_path()
              / ("nb-browser-stop-" + std::to_string(::getpid()));
  fs::create_directories(home / "workspace");
  browser_settings cfg;
  cfg.user_data_dir = (home / "chromium").string();
  {
    test::system_fixture fx;
    auto watch = fx.sys.spawn(exec_watch_impl, exec_session_limits{});
    auto b = fx.sys.spawn<caf::detached>(browser_impl, cfg,
                                         std::vector<std::string>{},
                                         (home / "workspace").string(), watch,
                                         stats_actor{});
    auto call = [&](std::string id, json args) {
      caf::scoped_actor self{fx.sys};
      tool_request req;
      req.session_key = "s1";
      req.call.id = std::move(id);
      req.call.name = "browser";
      req.call.arguments_json
        = browser_envelope((home / "workspace").string(), args.dump());
      tool_result out;
      self->request(b, std::chrono::seconds(120), req)
        .receive([&](tool_result& r) { out = r; },
                 [&](caf::error& e) { out.content = caf::to_string(e); });
      return out;
    };
    auto started = std::chrono::steady_clock::now();
    auto running = std::async(std::launch::async, [&] {
      return call("long", {{"action", "wait"}, {"ms", 60000}});
    });
    // The stop lands while Chromium starts or while the wait runs.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    caf::anon_send(watch, cancel_tools{"s1", {"long"}});
    auto r = running.get();
    CHECK(r.is_error);
    CHECK(r.content.find("stopped (/stop)") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - started
          < std::chrono::seconds(50));
    auto next = call("next", {{"action", "snapshot"}});
    CHECK_FALSE(next.is_error);
    CHECK(next.content.find("about:blank") != std::string::npos);
    caf::anon_send_exit(b, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(watch, caf::exit_reason::user_shutdown);
    caf::scoped_actor self{fx.sys};
    self->wait_for(b);
  }
  std::error_code ec;
  fs::remove_all(home, ec);
}
