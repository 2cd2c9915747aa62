// The tools front's catalog (what a session keeps between turns instead of
// asking for the tool list at every turn): a real front with a real MCP
// server (the scripted one, a child process). Asked once, it is one shared
// snapshot with each tool's definition written; its holder is sent the
// next one at every change (a settings save, an MCP server removed or
// added), and one with an MCP server not yet listed says so.
#include <doctest/doctest.h>

#include <chrono>

#include <caf/scoped_actor.hpp>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/tools_front.hpp"
#include "messages/provider_admin.hpp"
#include "nb_test_paths.hpp"
#include "tests/support/system_fixture.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nlohmann::json;
using std::chrono::seconds;

namespace {

const tool_spec* catalog_entry(const tool_catalog& c, const std::string& name) {
  if (!c.specs)
    return nullptr;
  for (auto& s : *c.specs)
    if (s.name == name)
      return &s;
  return nullptr;
}

tool_catalog ask_catalog(caf::scoped_actor& self, caf::actor_system& sys,
                         const tools_admin_actor& front) {
  tool_catalog out;
  self->request(front, seconds(30), tool_catalog_atom::value)
    .receive([&](tool_catalog& c) { out = std::move(c); },
             [&](caf::error& e) { FAIL(sys.render(e)); });
  return out;
}

/// The catalog the front sends its holder next, unasked.
tool_catalog next_sent(caf::scoped_actor& self) {
  tool_catalog out;
  self->receive([&](tool_catalog& c) { out = std::move(c); },
                caf::after(seconds(30)) >> [] { FAIL("no catalog was sent"); });
  return out;
}

void save_settings(caf::scoped_actor& self, caf::actor_system& sys,
                   const tools_admin_actor& front, const json& config,
                   const std::string& path) {
  tools_config tc;
  tc.config_json = config.dump();
  tc.config_path = path;
  self->request(front, seconds(10), tc)
    .receive([](caf::ok_atom) {},
             [&](caf::error& e) { FAIL(sys.render(e)); });
}

} // namespace

TEST_CASE("the tools front's catalog: asked once, each change sent to its "
          "holder") {
  test::temp_tree t;
  test::system_fixture f;
  auto server = json{{"type", "stdio"},
                     {"command", NB_BINARY_DIR "/tests/support/fake_mcp_stdio"}};
  auto config = [&](bool exec, bool desk) {
    json tools{{"exec", {{"enable", exec}}}, {"browser", {{"enable", false}}}};
    if (desk)
      tools["mcpServers"] = {{"desk", server}};
    return json{{"agents", {{"defaults", {{"workspace", t.ws}}}}},
                {"tools", tools}};
  };
  auto path = t.root + "/config.json";
  auto cfg = test::settings_for(t.ws);
  cfg.tools.browser.enable = false;
  mcp_server_settings desk;
  desk.type = "stdio";
  desk.command = NB_BINARY_DIR "/tests/support/fake_mcp_stdio";
  cfg.tools.mcp_servers["desk"] = desk;
  auto front =
    caf::actor_cast<tools_admin_actor>(spawn_tools(f.sys, cfg, stats_actor{}));
  caf::scoped_actor holder{f.sys};

  // The first ask waits for the MCP server's listing, as a list would.
  auto first = ask_catalog(holder, f.sys, front);
  REQUIRE(first.specs);
  CHECK(first.complete);
  CHECK(catalog_entry(first, "exec"));
  CHECK(catalog_entry(first, "mcp_desk_echo"));
  // The listing made it, and the asker, now a holder, was sent it too.
  CHECK(next_sent(holder).version == first.version);
  for (auto& s : *first.specs) {
    auto def = json::parse(s.definition_json, nullptr, false);
    REQUIRE_MESSAGE(def.is_object(), s.name);
    CHECK(def["type"] == "function");
    CHECK(def["function"]["name"] == s.name);
    CHECK(def["function"]["description"] == s.description);
    CHECK(def["function"]["parameters"] == json::parse(s.parameters_json));
  }
  // Nothing changed: the same snapshot, shared rather than copied.
  auto again = ask_catalog(holder, f.sys, front);
  CHECK(again.version == first.version);
  CHECK(again.specs.get() == first.specs.get());

  // A settings save that turns exec off and removes the MCP server: the
  // holder is sent the next catalog without asking.
  save_settings(holder, f.sys, front, config(false, false), path);
  auto saved = next_sent(holder);
  CHECK(saved.version > first.version);
  CHECK(saved.complete);
  CHECK_FALSE(catalog_entry(saved, "exec"));
  CHECK_FALSE(catalog_entry(saved, "mcp_desk_echo"));
  CHECK(catalog_entry(saved, "read_file"));

  // The server comes back: the catalog sent says it has not listed yet, so
  // the holder asks, and the answer waits for the listing.
  save_settings(holder, f.sys, front, config(true, true), path);
  auto restarted = next_sent(holder);
  CHECK_FALSE(restarted.complete);
  CHECK(catalog_entry(restarted, "exec"));
  CHECK_FALSE(catalog_entry(restarted, "mcp_desk_echo"));
  auto listed = ask_catalog(holder, f.sys, front);
  CHECK(listed.complete);
  CHECK(listed.version > restarted.version);
  CHECK(catalog_entry(listed, "mcp_desk_echo"));
  // The listing's own change was sent too (it made `listed`).
  CHECK(next_sent(holder).version == listed.version);
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
}
