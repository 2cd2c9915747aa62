// The tools front checks exec's sandbox after it starts (the gateway no
// longer waits ~12 ms for `bwrap ... true` before it is ready): a real
// front whose bubblewrap is missing withdraws exec and its session tools
// from its catalog, and an exec call is refused with the explanation —
// before the withdrawal by exec itself, after it by the front.
#include <doctest/doctest.h>

#include <chrono>

#include <caf/scoped_actor.hpp>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/tools_front.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/system_fixture.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using std::chrono::seconds;

namespace {

bool catalog_offers(caf::scoped_actor& self, const tools_admin_actor& front,
                    const std::string& name) {
  bool found = false;
  self->request(front, seconds(10), list_tools_atom::value)
    .receive(
      [&](std::vector<tool_spec>& specs) {
        for (auto& s : specs)
          found = found || s.name == name;
      },
      [&](caf::error&) { FAIL("the front did not list its tools"); });
  return found;
}

tool_result run_exec(caf::scoped_actor& self, const tools_admin_actor& front) {
  tool_request req;
  req.session_key = "api:sandbox-check";
  req.call.id = "c1";
  req.call.name = "exec";
  req.call.arguments_json = R"({"command":"echo hi"})";
  tool_result out;
  self->request(front, seconds(30), req)
    .receive([&](tool_result& r) { out = std::move(r); },
             [&](caf::error&) { FAIL("exec got no answer"); });
  return out;
}

} // namespace

TEST_CASE("a front whose bubblewrap is missing withdraws exec after it "
          "starts") {
  test::temp_tree t;
  test::system_fixture f;
  auto cfg = test::settings_for(t.ws);
  cfg.tools.browser.enable = false;
  REQUIRE(cfg.tools.exec.enable);
  REQUIRE(cfg.tools.restrict_to_workspace);
  auto ctx = make_tool_context(cfg);
  ctx.bwrap = "/nonexistent/bwrap";
  auto front = caf::actor_cast<tools_admin_actor>(f.sys.spawn(
    tools_impl,
    std::make_shared<const tool_registry>(make_builtin_registry(cfg)), ctx,
    int32_t{1}, stats_actor{}, std::map<std::string, mcp_server_settings>{}));
  caf::scoped_actor self{f.sys};

  // Whether the check has ended or not, exec does not run unsandboxed.
  auto early = run_exec(self, front);
  CHECK(early.is_error);
  CHECK(early.content.find("exec is disabled") != std::string::npos);
  CHECK(early.content.find("apt-get install bubblewrap") != std::string::npos);

  REQUIRE(
    test::eventually([&] { return !catalog_offers(self, front, "exec"); }));
  CHECK_FALSE(catalog_offers(self, front, "write_stdin"));
  CHECK_FALSE(catalog_offers(self, front, "list_exec_sessions"));
  CHECK(catalog_offers(self, front, "read_file"));
  auto late = run_exec(self, front);
  CHECK(late.is_error);
  self->send_exit(front, caf::exit_reason::user_shutdown);
}

TEST_CASE("a front whose bubblewrap runs keeps exec") {
  test::temp_tree t;
  test::system_fixture f;
  auto cfg = test::settings_for(t.ws);
  cfg.tools.browser.enable = false;
  auto front =
    caf::actor_cast<tools_admin_actor>(spawn_tools(f.sys, cfg, stats_actor{}));
  caf::scoped_actor self{f.sys};
  auto r = run_exec(self, front);
  CHECK_FALSE(r.is_error);
  CHECK(r.content.find("hi") != std::string::npos);
  CHECK(catalog_offers(self, front, "exec"));
  self->send_exit(front, caf::exit_reason::user_shutdown);
}
