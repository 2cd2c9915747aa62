// The WebUI's CLI Apps list refreshing the catalog in the background, on a
// real gateway: a scripted registry server on 127.0.0.1 holds its answer
// until the test lets it go; meanwhile the list answers at once from what
// it has, saying catalog_refresh_pending (also when asked again, with no
// second fetch started), and once the answer came a later list has the
// registry's rows.
#include <doctest/doctest.h>

#include <cstdlib>

#include "tests/support/eventually.hpp"
#include "tests/websocket/cli_registry_rig.hpp"

using namespace nb;
using namespace nb::test;

TEST_CASE("the CLI Apps list answers at once and refreshes the catalog "
          "behind its answer") {
  cli_registry registry{"nb-refresh-drawit", true};
  ::setenv("NANOBOT_CLI_APPS_REGISTRY", registry.base().c_str(), 1);
  gateway gw{{{"websocket", R"({"enabled": true, "port": 0,
                                "streaming": false})"}}};
  write_cli_apps_config(gw);
  httplib::Client http{"127.0.0.1", gw.port("websocket")};
  // Far below the registry's hold: a list that waited for the fetch fails.
  http.set_read_timeout(20, 0);
  auto list = [&] { return api_get(http, "/api/settings/cli-apps"); };

  auto first = list();
  CHECK(first["apps"].empty());
  CHECK(first["catalog_updated_at"].is_null());
  CHECK(first["catalog_refresh_pending"] == true);
  // The fetch runs: the registry has the request and holds it.
  REQUIRE(eventually([&] { return registry.asked() == 1; }));
  auto again = list();
  CHECK(again["apps"].empty());
  CHECK(again["catalog_refresh_pending"] == true);
  CHECK(registry.asked() == 1); // one refresh at a time

  registry.release();
  json later;
  // Until the refresh is over (the rows come with the first cache).
  CHECK(eventually([&] {
    later = list();
    return later["apps"].size() == 1
           && later["catalog_refresh_pending"] == false;
  }));
  REQUIRE(later["apps"].size() == 1);
  CHECK(later["apps"][0]["name"] == "drawit");
  CHECK(later["apps"][0]["status"] == "not_installed");
  CHECK(later["catalog_updated_at"] == "2026-12-01");
  // The optional registry has none to cache, so the catalog stays stale,
  // but the next refresh waits its minute: no second fetch.
  CHECK(registry.asked() == 1);
  ::unsetenv("NANOBOT_CLI_APPS_REGISTRY");
}
