// run_cli_app against real child processes: apps recorded as installed the
// way the original's Settings page records them (<config dir>/cli-apps/
// installed.json), listed by a catalog a scripted registry server on
// 127.0.0.1 serves, small shell scripts found on PATH, run by argv; the
// original's answer texts and refusals, the secret-free environment, the
// artifact report, the 12 000-byte cap, the time limit, the sandbox.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include <sys/stat.h>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/sandbox/sandbox_probe.hpp"
#include "actors/tools/side_files.hpp"
#include "tests/support/proc_scan.hpp"
#include "tests/tools/fixture.hpp"
#include "tests/tools/http_servers.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

namespace {

// A temp tree with a config dir, a bin dir on PATH, installed apps and the
// registry server the catalog comes from.
struct cli_rig {
  nb::test::temp_tree t;
  std::string old_path;
  nb::test::local_server registry;

  cli_rig() {
    // Every installed app is in the catalog, and so is GIMP, which is not
    // installed; the optional extensions registry is missing (404).
    json clis = json::array({{{"name", "GIMP"}}});
    for (auto name : {"mdtool", "slow", "big", "ghost", "escape"})
      clis.push_back({{"name", name}});
    registry.svr.Get("/registry.json", [clis](auto&, httplib::Response& res) {
      res.set_content(json{{"clis", clis}}.dump(), "application/json");
    });
    registry.svr.Get("/public_registry.json", [](auto&, auto& res) {
      res.set_content(R"({"clis": []})", "application/json");
    });
    registry.start();
    ::setenv("NANOBOT_CLI_APPS_REGISTRY", registry.base().c_str(), 1);
    old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", (t.root + "/bin:" + old_path).c_str(), 1);
    install({{"mdtool", "nb-cli-echo"},
             {"slow", "nb-cli-slow"},
             {"big", "nb-cli-big"},
             {"ghost", "nb-cli-missing"},
             {"escape", "nb-cli-escape"}});
    script("nb-cli-echo", "printf '%s\\n' \"$@\"\n"
                          "echo \"secret=${NB_CLI_TEST_SECRET:-none}\"\n"
                          "echo warn >&2\n"
                          "echo '# t' > out.md\n"
                          "exit 3\n");
    script("nb-cli-slow", "echo begun\nexec sleep 360\n");
    script("nb-cli-big", "head -c 20000 /dev/zero | tr '\\0' x\n");
    script("nb-cli-escape", "echo in > inside.txt\n"
                            "echo out > "
                              + t.outside
                              + "/escaped.txt && echo wrote-outside\n");
  }

  ~cli_rig() {
    ::setenv("PATH", old_path.c_str(), 1);
    ::unsetenv("NANOBOT_CLI_APPS_REGISTRY");
  }

  void install(const std::map<std::string, std::string>& apps) {
    json rec = {{"schema_version", 1}, {"apps", json::object()}};
    for (auto& [name, entry] : apps)
      rec["apps"][name] = {{"entry_point", entry},
                           {"version", "1.0"},
                           {"source", "harness"},
                           {"strategy", "pip"}};
    t.put("cfg/cli-apps/installed.json", rec.dump(2));
  }

  void script(const std::string& name, const std::string& body) {
    t.put("bin/" + name, "#!/bin/sh\n" + body);
    ::chmod((t.root + "/bin/" + name).c_str(), 0755);
  }

  tool_context ctx(bool restrict) const {
    auto c = t.ctx(restrict);
    c.config_dir = t.root + "/cfg";
    c.exec.allowed_env_keys = {"NB_CLI_TEST_SECRET"}; // exec's, not apps'
    return c;
  }
};

} // namespace

TEST_CASE("run_cli_app runs an installed app by argv and answers as the "
          "original does") {
  cli_rig rig;
  ::setenv("NB_CLI_TEST_SECRET", "sk-test", 1);
  auto r = nb::test::run(
    rig.ctx(false), "run_cli_app",
    {{"name", "MDTOOL"}, {"args", {"a b", "it's", "--flag"}}, {"json", true}});
  ::unsetenv("NB_CLI_TEST_SECRET");
  CHECK_FALSE(r.is_error);
  CHECK(r.content
        == "CLI app 'MDTOOL' exited 3.\n"
           "Command: nb-cli-echo --json 'a b' 'it'\"'\"'s' --flag\n"
           "\nSTDOUT:\n--json\na b\nit's\n--flag\nsecret=none\n"
           "\nSTDERR:\nwarn\n"
           "\nArtifacts created or updated:\n- out.md (md, 4 B)");
  CHECK(rig.t.get("ws/out.md") == "# t\n");
  // --json is not doubled; a second run changes out.md again (same size,
  // newer time) and it is reported again.
  r = nb::test::run(rig.ctx(false), "run_cli_app",
                    {{"name", "mdtool"},
                     {"args", {"--json"}},
                     {"json", true},
                     {"working_dir", "src"}});
  CHECK(has(r.content, "Command: nb-cli-echo --json\n"));
  CHECK(has(r.content, "- out.md (md, 4 B)"));
  CHECK(rig.t.exists("ws/src/out.md"));
}

TEST_CASE("run_cli_app refuses what is not installed or not there") {
  cli_rig rig;
  auto r = nb::test::run(rig.ctx(false), "run_cli_app", {{"name", "nope"}});
  CHECK(r.is_error);
  CHECK(has(r.content, "Error: CLI app 'nope' not found"));
  r = nb::test::run(rig.ctx(false), "run_cli_app", {{"name", "gimp"}});
  CHECK(r.is_error);
  CHECK(has(r.content, "Error: CLI app 'gimp' is not installed"));
  r = nb::test::run(rig.ctx(false), "run_cli_app", {{"name", "ghost"}});
  CHECK(r.is_error);
  CHECK(has(r.content, "Error: nb-cli-missing is not available on PATH"));
  r = nb::test::run(rig.ctx(true), "run_cli_app",
                    {{"name", "mdtool"}, {"working_dir", rig.t.outside}});
  CHECK(r.is_error);
  CHECK(has(r.content, "Error: working_dir is outside the configured "
                       "workspace"));
  r = nb::test::run(rig.ctx(false), "run_cli_app", {{"args", {"x"}}});
  CHECK(r.is_error);
  CHECK(has(r.content, "name"));
  // Installed but gone from the catalog: as the original, not found.
  rig.install({{"mdtool", "nb-cli-echo"}, {"retired", "nb-cli-echo"}});
  r = nb::test::run(rig.ctx(false), "run_cli_app", {{"name", "retired"}});
  CHECK(r.is_error);
  CHECK(has(r.content, "Error: CLI app 'retired' not found"));
  // No config dir: nothing is installed.
  auto bare = rig.ctx(false);
  bare.config_dir.clear();
  CHECK(has(nb::test::run(bare, "run_cli_app", {{"name", "mdtool"}}).content,
            "Error: CLI app 'mdtool' not found"));
}

TEST_CASE("run_cli_app keeps the first 12000 bytes and ends slow apps") {
  cli_rig rig;
  auto r = nb::test::run(rig.ctx(false), "run_cli_app", {{"name", "big"}});
  CHECK_FALSE(r.is_error);
  std::string head =
    "CLI app 'big' exited 0.\nCommand: nb-cli-big\n\nSTDOUT:\n";
  auto full = head.size() + 20000;
  CHECK(r.content.rfind(head + "xxxx", 0) == 0);
  CHECK(has(r.content, "x\n\n... truncated " + std::to_string(full - 12000)
                         + " characters ..."));
  CHECK(r.content.size() < 12100);
  r = nb::test::run(rig.ctx(false), "run_cli_app",
                    {{"name", "slow"}, {"timeout", 1}});
  CHECK_FALSE(r.is_error);
  CHECK(r.content == "CLI app 'slow' timed out after 1s");
  CHECK(nb::test::descendants_named("sleep").empty());
}

TEST_CASE("run_cli_app runs inside exec's sandbox when the workspace is "
          "restricted") {
  REQUIRE(sandbox_status_for().available);
  cli_rig rig;
  auto c = rig.ctx(true);
  // The app lives outside the system directories: bound in read-only, as
  // for exec.
  c.exec.sandbox_ro_binds = {rig.t.root + "/bin"};
  auto r = nb::test::run(c, "run_cli_app", {{"name", "escape"}});
  CHECK_FALSE(r.is_error);
  // The write outside failed, so the script's last command did.
  CHECK(has(r.content, "CLI app 'escape' exited "));
  CHECK_FALSE(has(r.content, "CLI app 'escape' exited 0."));
  CHECK(has(r.content, "\nSTDERR:\n"));
  CHECK_FALSE(has(r.content, "wrote-outside"));
  CHECK(rig.t.get("ws/inside.txt") == "in\n");
  CHECK_FALSE(rig.t.exists("outside/escaped.txt"));
  CHECK(has(r.content, "- inside.txt (txt, 3 B)"));
}

TEST_CASE("run_cli_app: the original's schema and flags, the installed apps "
          "in its description, off with tools.cliApps.enable") {
  cli_rig rig;
  auto cfg = nb::test::settings_for(rig.t.ws);
  cfg.config_path = rig.t.root + "/cfg/config.json";
  read_tool_side_files(cfg); // as the gateway does when it reads the config
  auto reg = make_builtin_registry(cfg);
  auto* tool = reg.find("run_cli_app");
  REQUIRE(tool);
  CHECK_FALSE(tool->spec.read_only);
  CHECK_FALSE(tool->spec.exclusive);
  CHECK(has(tool->spec.description,
            "Installed Settings CLI Apps: big, escape, ghost, mdtool, slow."));
  auto& props = tool->schema["properties"];
  for (auto key : {"name", "args", "json", "working_dir", "timeout"})
    CHECK(props.contains(key));
  CHECK(props["timeout"]["maximum"] == 600);
  CHECK(tool->schema["required"] == json::array({"name"}));
  cfg.tools.cli_apps.enable = false;
  CHECK_FALSE(make_builtin_registry(cfg).find("run_cli_app"));
  CHECK(has(make_builtin_registry(nb::test::settings_for(rig.t.ws))
              .find("run_cli_app")
              ->spec.description,
            "No Settings CLI Apps are currently installed."));
}
