// The legacy HTTP+SSE MCP transport against server-everything started in
// its sse mode: tools listed and called over the event stream, the SSRF
// guard in front of it, and a server killed in the middle of a call (the
// call ends at once; the next one reconnects to the restarted server).
#include <doctest/doctest.h>

#include <memory>
#include <variant>

#include "config/load.hpp"

#include "tests/mcp/mcp_fixture.hpp"

using namespace nb;
using namespace nb::mcp_test;

namespace {

mcp_server_settings legacy(int port, int timeout_s = 30) {
  mcp_server_settings s;
  s.type = "sse";
  s.url = "http://127.0.0.1:" + std::to_string(port) + "/sse";
  s.tool_timeout_s = timeout_s;
  return s;
}

} // namespace

TEST_CASE_FIXTURE(mcp_fixture, "mcp sse lists and calls tools over the event stream") {
  http_server_process srv{"sse"};
  auto f = front({{"legacy", legacy(srv.port)}}, {"127.0.0.1/32"});
  auto specs = list(f);
  REQUIRE(find(specs, "mcp_legacy_echo"));
  REQUIRE(find(specs, "mcp_legacy_get-sum"));
  auto echo = call(f, "mcp_legacy_echo", {{"message", "over sse"}});
  CHECK_FALSE(echo.is_error);
  CHECK(has(echo.content, "Echo: over sse"));
  auto sum = call(f, "mcp_legacy_get-sum", {{"a", 20}, {"b", 22}});
  CHECK_FALSE(sum.is_error);
  CHECK(has(sum.content, "42"));
  auto bad = call(f, "mcp_legacy_get-sum", {{"a", "x"}});
  CHECK(bad.is_error);
  // Without the whitelist the loopback server is refused before connecting.
  auto closed = front({{"legacy", legacy(srv.port)}});
  for (auto& spec : list(closed))
    CHECK(spec.name.rfind("mcp_legacy_", 0) != 0);
}

TEST_CASE_FIXTURE(mcp_fixture, "mcp sse a config url ending in /sse picks the transport") {
  http_server_process srv{"sse"};
  // As nanobot decides: no type, a URL ending in /sse means SSE.
  auto text = R"({"tools": {"ssrfWhitelist": ["127.0.0.1/32"], "mcpServers":
                 {"auto": {"url": "http://127.0.0.1:)"
              + std::to_string(srv.port) + R"(/sse"}}}})";
  auto loaded = parse_settings(text, "test.json");
  REQUIRE(std::holds_alternative<loaded_settings>(loaded));
  auto cfg = std::get<loaded_settings>(loaded).value;
  REQUIRE(cfg.tools.mcp_servers.count("auto") == 1);
  CHECK(cfg.tools.mcp_servers["auto"].type == "sse");
  auto f = front(cfg.tools.mcp_servers, cfg.tools.ssrf_whitelist);
  REQUIRE(find(list(f), "mcp_auto_echo"));
  auto echo = call(f, "mcp_auto_echo", {{"message", "picked"}});
  INFO(echo.content);
  CHECK_FALSE(echo.is_error);
  CHECK(has(echo.content, "Echo: picked"));
}

TEST_CASE_FIXTURE(mcp_fixture, "mcp sse call ends when the server dies mid-call") {
  auto srv = std::make_unique<http_server_process>("sse");
  auto port = srv->port;
  auto f = front({{"legacy", legacy(port)}}, {"127.0.0.1/32"});
  REQUIRE(find(list(f), "mcp_legacy_trigger-long-running-operation"));
  std::thread killer([pid = srv->pid] {
    std::this_thread::sleep_for(milliseconds(1500));
    ::killpg(pid, SIGKILL);
  });
  auto start = steady_clock::now();
  auto r = call(f, "mcp_legacy_trigger-long-running-operation",
                {{"duration", 20}, {"steps", 4}});
  killer.join();
  INFO(r.content);
  CHECK(r.is_error);
  CHECK(has(r.content, "event stream ended"));
  CHECK(steady_clock::now() - start < seconds(15));
  srv.reset();
  // The same server back on its port: the next call reconnects.
  http_server_process again{"sse", port};
  auto echo = call(f, "mcp_legacy_echo", {{"message", "again"}});
  INFO(echo.content);
  CHECK_FALSE(echo.is_error);
  CHECK(has(echo.content, "Echo: again"));
}

TEST_CASE_FIXTURE(mcp_fixture, "mcp sse toolTimeout ends a slow call") {
  http_server_process srv{"sse"};
  auto f = front({{"legacy", legacy(srv.port, 2)}}, {"127.0.0.1/32"});
  REQUIRE(find(list(f), "mcp_legacy_trigger-long-running-operation"));
  auto r = call(f, "mcp_legacy_trigger-long-running-operation",
                {{"duration", 30}, {"steps", 3}});
  CHECK(r.is_error);
  CHECK(has(r.content, "timed out after 2 s"));
  auto echo = call(f, "mcp_legacy_echo", {{"message", "still here"}});
  INFO(echo.content);
  CHECK(has(echo.content, "Echo: still here"));
}
