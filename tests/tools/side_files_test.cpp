// What the tools take from files beside config.json (the enabled Agent
// Plugins' MCP servers, the installed CLI apps) is read by whoever reads the
// config, never by the tools front, and survives a settings change: a real
// tools front with a real plugin MCP server (a child process), changed the
// way the WebUI's save changes it (tools_config read by the saving worker);
// with agents.list, each agent's front gets its own workspace's plugins.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <sys/stat.h>

#include <caf/scoped_actor.hpp>

#include "actors/skills/agent_plugins.hpp"
#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/side_files.hpp"
#include "actors/tools/tools_front.hpp"
#include "config/load.hpp"
#include "messages/provider_admin.hpp"
#include "nb_test_paths.hpp"
#include "tests/support/system_fixture.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;
using std::chrono::seconds;

namespace {

// A workspace with the "desk" plugin (one stdio MCP server: the scripted
// one) enabled, two installed CLI apps, and a config file naming both.
struct side_rig {
  test::temp_tree t;
  std::string config_path;

  side_rig() {
    auto root = t.ws + "/plugins/desk";
    t.put(
      "ws/plugins/desk/plugin.json",
      R"({"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "desk"})");
    t.put("ws/plugins/desk/bin/server",
          "#!/bin/sh\nexec " NB_BINARY_DIR "/tests/support/fake_mcp_stdio\n");
    ::chmod((root + "/bin/server").c_str(), 0755);
    t.put(
      "ws/plugins/desk/mcp.json",
      R"({"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
              "mcpServers": {"desk": {"type": "stdio", "command": "./bin/server"}}})");
    t.put("cfg/cli-apps/installed.json",
          R"({"schema_version": 1, "apps": {"mdtool": {"entry_point": "md"},
                                            "draw": {"entry_point": "dr"}}})");
    config_path = t.root + "/cfg/config.json";
    put_config(60);
    REQUIRE(set_agent_plugin_enabled(t.ws, t.root + "/cfg", "desk", true)
            == "");
  }

  void put_config(int exec_timeout) {
    t.put("cfg/config.json", config_text(exec_timeout));
  }

  tools_config change(int exec_timeout) const {
    tools_config tc;
    tc.config_json = config_text(exec_timeout);
    tc.config_path = config_path;
    return tc;
  }

  std::string config_text(int exec_timeout) const {
    return json{{"agents", {{"defaults", {{"workspace", t.ws}}}}},
                {"tools",
                 {{"exec", {{"timeout", exec_timeout}}},
                  {"browser", {{"enable", false}}}}}}
      .dump();
  }
};

std::vector<tool_spec> specs_of(caf::actor_system& sys, tools_actor front) {
  std::vector<tool_spec> out;
  caf::scoped_actor self{sys};
  self->request(front, seconds(5), list_tools_atom::value)
    .receive([&](std::vector<tool_spec>& specs) { out = std::move(specs); },
             [&](caf::error& e) { FAIL(sys.render(e)); });
  return out;
}

const tool_spec* find_spec(const std::vector<tool_spec>& specs,
                           const std::string& name) {
  for (auto& s : specs)
    if (s.name == name)
      return &s;
  return nullptr;
}

// The MCP server connects in the background: asks until its tool is listed.
bool wait_for_tool(caf::actor_system& sys, tools_actor front,
                   const std::string& name) {
  for (int i = 0; i < 200; ++i) {
    if (find_spec(specs_of(sys, front), name))
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

} // namespace

TEST_CASE("the config's side files: read with the config, kept by a tools "
          "settings change") {
  side_rig rig;
  test::system_fixture f;
  auto cfg = test::settings_for(rig.t.ws);
  cfg.config_path = rig.config_path;
  cfg.tools.browser.enable = false;
  read_tool_side_files(cfg);
  CHECK(cfg.tools.cli_apps.installed
        == std::vector<std::string>{"draw", "mdtool"});
  REQUIRE(cfg.tools.mcp_servers.count("desk"));

  auto front = spawn_tools(f.sys, cfg, stats_actor{});
  REQUIRE(wait_for_tool(f.sys, front, "mcp_desk_echo"));
  // The listing outlives the pointer into it (a temporary's would dangle).
  auto listed = specs_of(f.sys, front);
  auto* cli = find_spec(listed, "run_cli_app");
  REQUIRE(cli);
  CHECK(has(cli->description, "Installed Settings CLI Apps: draw, mdtool."));

  // The WebUI saves a tools change; its worker reads the side files.
  rig.put_config(90);
  auto change = rig.change(90);
  read_tool_side_files(change);
  REQUIRE(change.plugin_servers.size() == 1);
  CHECK(change.plugin_servers[0].name == "desk");
  CHECK(change.cli_apps_installed
        == std::vector<std::string>{"draw", "mdtool"});
  caf::scoped_actor self{f.sys};
  self->request(caf::actor_cast<tools_admin_actor>(front), seconds(10), change)
    .receive([](caf::ok_atom) {},
             [&](caf::error& e) { FAIL(f.sys.render(e)); });
  auto after = specs_of(f.sys, front);
  CHECK(find_spec(after, "mcp_desk_echo"));
  cli = find_spec(after, "run_cli_app");
  REQUIRE(cli);
  CHECK(has(cli->description, "Installed Settings CLI Apps: draw, mdtool."));

  // A change read without the files (an older sender) drops them: the
  // front itself never reads them.
  self
    ->request(caf::actor_cast<tools_admin_actor>(front), seconds(10),
              rig.change(90))
    .receive([](caf::ok_atom) {},
             [&](caf::error& e) { FAIL(f.sys.render(e)); });
  after = specs_of(f.sys, front);
  CHECK_FALSE(find_spec(after, "mcp_desk_echo"));
  cli = find_spec(after, "run_cli_app");
  REQUIRE(cli);
  CHECK(has(cli->description, "No Settings CLI Apps are currently installed."));
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
}

namespace {

/// Puts plugin `name` (one stdio server, the scripted one) in `ws_rel`
/// below the tree and enables it for that workspace.
void put_plugin(const test::temp_tree& t, const std::string& ws_rel,
                const std::string& name) {
  auto dir = ws_rel + "/plugins/" + name;
  t.put(dir + "/plugin.json",
        json{{"$schema", agent_plugin_schema}, {"name", name}}.dump());
  t.put(dir + "/bin/server",
        "#!/bin/sh\nexec " NB_BINARY_DIR "/tests/support/fake_mcp_stdio\n");
  ::chmod((t.root + "/" + dir + "/bin/server").c_str(), 0755);
  t.put(dir + "/mcp.json",
        json{{"$schema", agent_plugin_mcp_schema},
             {"mcpServers",
              {{name, {{"type", "stdio"}, {"command", "./bin/server"}}}}}}
          .dump());
  REQUIRE(set_agent_plugin_enabled(t.root + "/" + ws_rel, t.root + "/cfg",
                                   name, true)
          == "");
}

bool has_server(const settings& view, const std::string& name) {
  return view.tools.mcp_servers.count(name) > 0;
}

} // namespace

TEST_CASE("each agent's tools front runs the MCP servers its own "
          "workspace's enabled Agent Plugins bring") {
  side_rig rig; // main's workspace enables "desk"
  put_plugin(rig.t, "ws-alpha", "adesk");
  put_plugin(rig.t, "ws-beta", "bdesk");
  // Installed in beta's workspace but not enabled there: inert.
  rig.t.put("ws-beta/plugins/idle/plugin.json",
            json{{"$schema", agent_plugin_schema}, {"name", "idle"}}.dump());
  auto text =
    json{{"agents",
          {{"defaults", {{"workspace", rig.t.ws}}},
           {"list",
            {{{"id", "alpha"}, {"workspace", rig.t.root + "/ws-alpha"}},
             {{"id", "beta"}, {"workspace", rig.t.root + "/ws-beta"}}}}}},
         {"tools", {{"browser", {{"enable", false}}}}}}
      .dump();
  rig.t.put("cfg/config.json", text);
  auto parsed = parse_settings(text, rig.config_path);
  REQUIRE(std::holds_alternative<loaded_settings>(parsed));
  auto cfg = std::get<loaded_settings>(parsed).value;
  read_tool_side_files(cfg);

  auto main_view = cfg.for_agent("main");
  auto alpha = cfg.for_agent("alpha");
  auto beta = cfg.for_agent("beta");
  CHECK(has_server(main_view, "desk"));
  CHECK_FALSE(has_server(main_view, "adesk"));
  CHECK(has_server(alpha, "adesk"));
  CHECK_FALSE(has_server(alpha, "desk"));
  CHECK_FALSE(has_server(alpha, "bdesk"));
  CHECK(has_server(beta, "bdesk"));
  CHECK_FALSE(has_server(beta, "desk"));
  CHECK_FALSE(has_server(beta, "idle"));

  // Real fronts, as the gateway spawns them: each connects its own.
  test::system_fixture f;
  auto front_a = spawn_tools(f.sys, alpha, stats_actor{});
  auto front_b = spawn_tools(f.sys, beta, stats_actor{});
  REQUIRE(wait_for_tool(f.sys, front_a, "mcp_adesk_echo"));
  REQUIRE(wait_for_tool(f.sys, front_b, "mcp_bdesk_echo"));
  CHECK_FALSE(find_spec(specs_of(f.sys, front_a), "mcp_desk_echo"));
  CHECK_FALSE(find_spec(specs_of(f.sys, front_a), "mcp_bdesk_echo"));
  CHECK_FALSE(find_spec(specs_of(f.sys, front_b), "mcp_adesk_echo"));

  // A settings change read by the WebUI's worker keeps each its own.
  tools_config change;
  change.config_json = text;
  change.config_path = rig.config_path;
  read_tool_side_files(change);
  int alpha_servers = 0;
  for (auto& p : change.plugin_servers)
    if (p.agent == "alpha") {
      ++alpha_servers;
      CHECK(p.name == "adesk");
    }
  CHECK(alpha_servers == 1);
  caf::scoped_actor self{f.sys};
  self
    ->request(caf::actor_cast<tools_admin_actor>(front_a), seconds(10),
              change)
    .receive([](caf::ok_atom) {},
             [&](caf::error& e) { FAIL(f.sys.render(e)); });
  auto after = specs_of(f.sys, front_a);
  CHECK(find_spec(after, "mcp_adesk_echo"));
  CHECK_FALSE(find_spec(after, "mcp_desk_echo"));
  caf::anon_send_exit(front_a, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(front_b, caf::exit_reason::user_shutdown);
}
