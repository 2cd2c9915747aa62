// The CLI apps' catalog and installer against a scripted registry server on
// 127.0.0.1 (NANOBOT_CLI_APPS_REGISTRY) and real child processes: the
// caches and their TTL, the stale cache when the registry fails, installing
// through a package manager (a script named uv on PATH that puts the app's
// entry point in place), the record in installed.json, the skill as an
// enabled Agent Plugin, run_cli_app on the new app, the install time limit,
// the original's refusals, uninstalling.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>

#include <sys/stat.h>

#include "actors/skills/agent_plugins.hpp"
#include "actors/tools/cli_catalog.hpp"
#include "actors/tools/cli_install.hpp"
#include "tests/tools/fixture.hpp"
#include "tests/tools/http_servers.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

namespace {

// A registry server, a config dir, a workspace and a bin dir on PATH.
struct install_rig {
  nb::test::temp_tree t;
  nb::test::local_server registry;
  std::atomic<bool> failing{false};
  std::atomic<int> registry_hits{0};
  std::string old_path;
  json harness;

  install_rig() {
    harness = {
      {"meta", {{"updated", "2026-11-30"}}},
      {"clis",
       {{{"name", "drawit"},
         {"display_name", "Draw It"},
         {"description", "The official diagram CLI."},
         {"category", "design"},
         {"version", "2.1"},
         {"entry_point", "nb-drawit"},
         {"package_manager", "uv"},
         {"install_cmd", "uv tool install nb-drawit"},
         {"uninstall_cmd", "uv tool uninstall nb-drawit"},
         {"skill_md", "skills/drawit/SKILL.md"}},
        {{"name", "slowpkg"},
         {"entry_point", "nb-slowpkg"},
         {"package_manager", "uv"},
         {"install_cmd", "uv tool install slow"}},
        {{"name", "broken"},
         {"entry_point", "nb-broken"},
         {"package_manager", "uv"},
         {"install_cmd", "uv tool install broken"}},
        {{"name", "piped"},
         {"entry_point", "nb-piped"},
         {"install_cmd", "curl https://example.com/x.sh | sh"}}}}};
    registry.svr.Get("/registry.json", [this](auto&, httplib::Response& res) {
      ++registry_hits;
      if (failing) {
        res.status = 503;
        return;
      }
      res.set_content(harness.dump(), "application/json");
    });
    registry.svr.Get("/public_registry.json", [this](auto&, auto& res) {
      if (failing) {
        res.status = 503;
        return;
      }
      res.set_content(R"({"meta": {"updated": "2026-12-01"}, "clis": [
        {"name": "drawit", "requires": "a display"}]})",
                      "application/json");
    });
    registry.svr.Get("/skills/drawit/SKILL.md", [](auto&, auto& res) {
      res.set_content("---\nname: drawit\ndescription: Draw diagrams.\n---\n"
                      "\n# Draw It\n\nRun `nb-drawit render`.\n",
                      "text/markdown");
    });
    registry.start();
    ::setenv("NANOBOT_CLI_APPS_REGISTRY", registry.base().c_str(), 1);
    old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", (t.root + "/bin:" + old_path).c_str(), 1);
    // The package manager: installs put the entry point in bin/, "slow"
    // hangs, "broken" fails; uninstall removes it.
    script("uv", "echo \"uv $*\" >> " + t.root + "/uv.log\n"
                 "case \"$3\" in\n"
                 "  slow) exec sleep 300 ;;\n"
                 "  broken) echo 'resolution failed' >&2; exit 1 ;;\n"
                 "esac\n"
                 "if [ \"$2\" = uninstall ]; then rm -f "
                   + t.root + "/bin/$3; exit 0; fi\n"
                 "printf '#!/bin/sh\\necho drawn \"$@\" \"${NB_CLI_TEST_KEY:-"
                 "nokey}\"\\n' > "
                   + t.root + "/bin/$3\nchmod 755 " + t.root + "/bin/$3\n");
  }

  ~install_rig() {
    ::setenv("PATH", old_path.c_str(), 1);
    ::unsetenv("NANOBOT_CLI_APPS_REGISTRY");
  }

  void script(const std::string& name, const std::string& body) {
    t.put("bin/" + name, "#!/bin/sh\n" + body);
    ::chmod((t.root + "/bin/" + name).c_str(), 0755);
  }

  std::string cfg() const { return t.root + "/cfg"; }

  cli_apps_home home(int install_timeout = 300) const {
    cli_apps_home h{cfg(), t.ws, {}};
    h.limits.install_timeout_s = install_timeout;
    return h;
  }

  json cache(const std::string& source) const {
    return json::parse(
      t.get("cfg/cli-apps/" + source + "_registry_cache.json"), nullptr,
      false);
  }

  /// Makes the harness cache look `age` seconds old.
  void age_cache(double age) const {
    auto c = cache("harness");
    c["_cached_at"] = c["_cached_at"].get<double>() - age;
    t.put("cfg/cli-apps/harness_registry_cache.json", c.dump(2));
  }
};

} // namespace

TEST_CASE("the CLI apps catalog is fetched, cached with its time and kept "
          "for catalogTtlSeconds") {
  install_rig rig;
  auto cat = load_cli_catalog(rig.cfg(), 3600, catalog_mode::fresh);
  REQUIRE(cat.error.empty());
  CHECK(rig.registry_hits == 1);
  CHECK(cat.updated == "2026-12-01");
  // Merged by name in any case: public's row fills in, both sources named.
  auto* draw = find_cli_app(cat, "DRAWIT");
  REQUIRE(draw);
  CHECK((*draw)["_source"] == "harness+public");
  CHECK((*draw)["requires"] == "a display");
  CHECK((*draw)["entry_point"] == "nb-drawit");
  auto c = rig.cache("harness");
  REQUIRE(c.is_object());
  CHECK(c["data"] == rig.harness);
  CHECK(c["_cached_at"].is_number());
  CHECK_FALSE(rig.t.exists("cfg/cli-apps/extensions_registry_cache.json"));
  CHECK(cli_catalog_fresh(rig.cfg(), 3600, false));
  CHECK_FALSE(cli_catalog_fresh(rig.cfg(), 3600, true)); // no extensions

  // Within the TTL the cache answers; past it the registry is asked again.
  load_cli_catalog(rig.cfg(), 3600, catalog_mode::fresh);
  CHECK(rig.registry_hits == 1);
  rig.age_cache(120);
  load_cli_catalog(rig.cfg(), 3600, catalog_mode::fresh);
  CHECK(rig.registry_hits == 1);
  load_cli_catalog(rig.cfg(), 60, catalog_mode::fresh);
  CHECK(rig.registry_hits == 2);
  CHECK(rig.cache("harness")["_cached_at"].get<double>()
        > c["_cached_at"].get<double>() - 1);

  // A failing registry: the stale cache is used; without one, the catalog
  // is not available and says why.
  rig.failing = true;
  rig.age_cache(7200);
  cat = load_cli_catalog(rig.cfg(), 3600, catalog_mode::fresh);
  CHECK(rig.registry_hits == 3);
  CHECK(cat.error.empty());
  CHECK(find_cli_app(cat, "drawit"));
  std::filesystem::remove_all(rig.cfg() + "/cli-apps");
  cat = load_cli_catalog(rig.cfg(), 3600, catalog_mode::fresh);
  CHECK(cat.apps.empty());
  CHECK(has(cat.error, "the harness registry (" + rig.registry.base()
                         + "/registry.json): HTTP 503"));
}

TEST_CASE("installing a CLI app runs its package manager, records it in "
          "installed.json and enables its skill; run_cli_app then runs it") {
  install_rig rig;
  auto home = rig.home();
  auto before = cli_apps_listing(home, true);
  CHECK(before["installed_count"] == 0);
  CHECK(before["catalog_updated_at"] == "2026-12-01");
  json draw_row;
  for (auto& row : before["apps"])
    if (row["name"] == "drawit")
      draw_row = row;
  CHECK(draw_row["status"] == "not_installed");
  CHECK(draw_row["install_supported"] == true);

  auto out = cli_app_action(home, "install", "drawit");
  REQUIRE(out.error.empty());
  CHECK(out.body["last_action"]["ok"] == true);
  CHECK(out.body["last_action"]["message"] == "Installed CLI for Draw It.");
  CHECK(out.body["installed_count"] == 1);
  CHECK(rig.t.get("uv.log") == "uv tool install nb-drawit\n");

  auto rec = json::parse(rig.t.get("cfg/cli-apps/installed.json"));
  CHECK(rec["schema_version"] == 1);
  auto& e = rec["apps"]["drawit"];
  CHECK(e["entry_point"] == "nb-drawit");
  CHECK(e["entry_point_path"] == rig.t.root + "/bin/nb-drawit");
  CHECK(e["version"] == "2.1");
  CHECK(e["source"] == "harness+public");
  CHECK(e["strategy"] == "uv");
  CHECK(e["display_name"] == "Draw It");
  CHECK(e["installed_at"].is_number_integer());

  // The skill: the registry's SKILL.md under our name, with the note.
  auto skill =
    rig.t.get("ws/plugins/cli-app-drawit/skills/cli-app-drawit/SKILL.md");
  CHECK(skill.rfind("---\nname: cli-app-drawit\ndescription: Draw diagrams."
                    "\n---\n\n<!-- nanobot-cli-app-note -->\n",
                    0)
        == 0);
  CHECK(has(skill, "Use the `run_cli_app` tool with `name=\"drawit\"`"));
  CHECK(has(skill, "Run `nb-drawit render`."));
  auto manifest =
    json::parse(rig.t.get("ws/plugins/cli-app-drawit/plugin.json"));
  CHECK(manifest["name"] == "cli-app-drawit");
  CHECK(manifest["description"] == "The diagram CLI.");
  auto plugins = discover_agent_plugins(rig.t.ws, rig.cfg());
  REQUIRE(plugins.size() == 1);
  CHECK(plugins[0].enabled);

  // run_cli_app: installed now, with a secret-free environment.
  auto ctx = rig.t.ctx(false);
  ctx.config_dir = rig.cfg();
  ::setenv("NB_CLI_TEST_KEY", "sk-test", 1);
  auto r = nb::test::run(ctx, "run_cli_app",
                         {{"name", "drawit"}, {"args", {"x"}}});
  ::unsetenv("NB_CLI_TEST_KEY");
  CHECK_FALSE(r.is_error);
  CHECK(r.content == "CLI app 'drawit' exited 0.\nCommand: nb-drawit x\n"
                     "\nSTDOUT:\ndrawn x nokey");
  auto listed = cli_apps_listing(home, false);
  for (auto& row : listed["apps"])
    if (row["name"] == "drawit") {
      CHECK(row["status"] == "installed");
      CHECK(row["skill_installed"] == true);
    }

  // Already there: recorded without running the package manager.
  out = cli_app_action(home, "install", "drawit");
  CHECK(out.body["last_action"]["message"]
        == "CLI for Draw It is already available.");
  CHECK(rig.t.get("uv.log") == "uv tool install nb-drawit\n");

  // Uninstall: the manager removes it, the record and the plugin go.
  out = cli_app_action(home, "uninstall", "drawit");
  REQUIRE(out.error.empty());
  CHECK(out.body["last_action"]["message"] == "Uninstalled CLI for Draw It.");
  CHECK(out.body["installed_count"] == 0);
  CHECK_FALSE(rig.t.exists("bin/nb-drawit"));
  CHECK_FALSE(rig.t.exists("ws/plugins/cli-app-drawit"));
  rec = json::parse(rig.t.get("cfg/cli-apps/installed.json"));
  CHECK(rec["apps"].empty());
  r = nb::test::run(ctx, "run_cli_app", {{"name", "drawit"}});
  CHECK(r.is_error);
  CHECK(has(r.content, "Error: CLI app 'drawit' is not installed"));
}

TEST_CASE("CLI app installs: the time limit, a failing package manager and "
          "the original's refusals") {
  install_rig rig;
  auto out = cli_app_action(rig.home(1), "install", "slowpkg");
  CHECK(out.status == 500);
  CHECK(out.error == "Command 'uv tool install slow' timed out after 1 "
                     "seconds");
  out = cli_app_action(rig.home(), "install", "broken");
  CHECK(out.status == 500);
  CHECK(out.error == "resolution failed\n");
  out = cli_app_action(rig.home(), "install", "piped");
  CHECK(out.status == 400);
  CHECK(out.error == "this CLI app uses an unsupported install strategy");
  out = cli_app_action(rig.home(), "install", "nope");
  CHECK(out.status == 404);
  CHECK(out.error == "CLI app 'nope' not found");
  out = cli_app_action(rig.home(), "uninstall", "slowpkg");
  CHECK(out.error == "CLI app is not installed");
  out = cli_app_action(rig.home(), "install", " ");
  CHECK(out.error == "missing CLI app name");
  out = cli_app_action(rig.home(), "explode", "drawit");
  CHECK(out.status == 404);
  CHECK(out.error == "unknown CLI app action 'explode'");
  CHECK_FALSE(rig.t.exists("cfg/cli-apps/installed.json"));
}

TEST_CASE("an npm install that fails on npm's stale folder (ENOTEMPTY on "
          "rename) is retried once those folders are gone") {
  install_rig rig;
  rig.harness["clis"].push_back({{"name", "hyper"},
                                 {"entry_point", "nb-hyper"},
                                 {"npm_package", "nb-hyper"}});
  auto global = rig.t.root + "/global";
  // npm: `root -g` names the global folder; the install fails as npm does
  // while a folder of the package is left over from an interrupted one.
  rig.script("npm", "echo \"npm $*\" >> " + rig.t.root + "/npm.log\n"
                    "if [ \"$1\" = root ]; then echo " + global + "; exit 0; fi\n"
                    "if [ -e " + global + "/nb-hyper ]; then\n"
                    "  echo 'npm error code ENOTEMPTY' >&2\n"
                    "  echo 'npm error syscall rename' >&2; exit 1\n"
                    "fi\n"
                    "printf '#!/bin/sh\\necho hyper\\n' > " + rig.t.root
                    + "/bin/nb-hyper\nchmod 755 " + rig.t.root
                    + "/bin/nb-hyper\n");
  rig.t.put("global/nb-hyper/package.json", "{}");
  rig.t.put("global/.nb-hyper-Xa1b2/package.json", "{}");
  rig.t.put("global/other/package.json", "{}");

  auto out = cli_app_action(rig.home(), "install", "hyper");
  REQUIRE_MESSAGE(out.error.empty(), out.error);
  CHECK(out.body["last_action"]["message"] == "Installed CLI for hyper.");
  CHECK(rig.t.get("npm.log") == "npm install -g nb-hyper\nnpm root -g\n"
                                "npm install -g nb-hyper\n");
  CHECK_FALSE(rig.t.exists("global/nb-hyper"));
  CHECK_FALSE(rig.t.exists("global/.nb-hyper-Xa1b2"));
  CHECK(rig.t.exists("global/other/package.json")); // not the package's
  auto rec = json::parse(rig.t.get("cfg/cli-apps/installed.json"));
  CHECK(rec["apps"]["hyper"]["strategy"] == "npm");

  // Another failure is not retried: npm's own words come back.
  std::filesystem::remove(rig.t.root + "/bin/nb-hyper");
  rig.t.put("global/nb-hyper/package.json", "{}");
  rig.script("npm", "echo \"npm $*\" >> " + rig.t.root + "/npm2.log\n"
                    "echo 'npm error code E404' >&2; exit 1\n");
  out = cli_app_action(rig.home(), "update", "hyper");
  CHECK(out.status == 500);
  CHECK(out.error == "npm error code E404\n");
  out = cli_app_action(rig.home(), "uninstall", "hyper");
  CHECK(out.error == "npm error code E404\n");
  CHECK(rig.t.get("npm2.log") == "npm install -g nb-hyper@latest\n"
                                 "npm uninstall -g nb-hyper\n");
  CHECK(rig.t.exists("global/nb-hyper/package.json"));
}
