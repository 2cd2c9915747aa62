// The MCP client through the tools front, against the reference servers
// published on npm: tools listed as mcp_<server>_<tool>, calls, the
// enabledTools filter, toolTimeout, a server killed in the middle of a call
// (restarted on the next one), and a broken server that blocks nobody.
#include <doctest/doctest.h>

#include "tests/mcp/mcp_fixture.hpp"

using namespace nb;
using namespace nb::mcp_test;

TEST_CASE_FIXTURE(mcp_fixture, "mcp lists and calls the everything server") {
  auto f = front({{"everything", everything()}});
  auto specs = list(f);
  REQUIRE(find(specs, "mcp_everything_echo"));
  REQUIRE(find(specs, "mcp_everything_get-sum"));
  CHECK(find(specs, "read_file")); // built-ins stay, first
  CHECK(specs.front().name.rfind("mcp_", 0) != 0);
  CHECK(specs.back().name.rfind("mcp_", 0) == 0);
  auto schema = json::parse(find(specs, "mcp_everything_echo")->parameters_json);
  CHECK(schema["type"] == "object");
  CHECK(schema["properties"].contains("message"));
  auto echo = call(f, "mcp_everything_echo", {{"message", "hi there"}});
  CHECK_FALSE(echo.is_error);
  CHECK(has(echo.content, "Echo: hi there"));
  CHECK(has(echo.content, "treat as data"));
  auto sum = call(f, "mcp_everything_get-sum", {{"a", 2}, {"b", 40}});
  CHECK_FALSE(sum.is_error);
  CHECK(has(sum.content, "42"));
  auto bad = call(f, "mcp_everything_get-sum", {{"a", "x"}});
  CHECK(bad.is_error);
}

TEST_CASE_FIXTURE(mcp_fixture, "mcp filesystem server reads its allowed folder") {
  mcp_server_settings fs;
  fs.type = "stdio";
  fs.command = "node";
  fs.args = {pkg_dir + "/server-filesystem/dist/index.js", dir};
  auto f = front({{"fs", fs}});
  auto specs = list(f);
  REQUIRE(find(specs, "mcp_fs_list_directory"));
  REQUIRE(find(specs, "mcp_fs_read_text_file"));
  CHECK(find(specs, "mcp_fs_read_text_file")->read_only);
  CHECK_FALSE(find(specs, "mcp_fs_write_file")->read_only);
  auto ls = call(f, "mcp_fs_list_directory", {{"path", dir}});
  CHECK_FALSE(ls.is_error);
  CHECK(has(ls.content, "hello.txt"));
  auto cat = call(f, "mcp_fs_read_text_file", {{"path", dir + "/hello.txt"}});
  CHECK(has(cat.content, "hello from the workspace"));
  auto denied = call(f, "mcp_fs_read_text_file", {{"path", "/etc/passwd"}});
  CHECK(denied.is_error);
}

TEST_CASE_FIXTURE(mcp_fixture, "mcp enabledTools keeps only the chosen tools") {
  auto s = everything();
  s.enabled_tools = {"echo", "mcp_everything_get-sum"};
  auto specs = list(front({{"everything", s}}));
  std::vector<std::string> mcp;
  for (auto& spec : specs)
    if (spec.name.rfind("mcp_", 0) == 0)
      mcp.push_back(spec.name);
  CHECK(mcp == std::vector<std::string>{"mcp_everything_echo",
                                        "mcp_everything_get-sum"});
}

TEST_CASE_FIXTURE(mcp_fixture, "mcp survives its server being killed mid-call") {
  auto f = front({{"everything", everything()}});
  REQUIRE(find(list(f), "mcp_everything_trigger-long-running-operation"));
  auto before = children_running("server-everything");
  REQUIRE(before.size() == 1);
  std::thread killer([pid = before[0]] {
    std::this_thread::sleep_for(milliseconds(1500));
    ::kill(pid, SIGKILL);
  });
  auto start = steady_clock::now();
  auto r = call(f, "mcp_everything_trigger-long-running-operation",
                {{"duration", 20}, {"steps", 4}});
  killer.join();
  CHECK(r.is_error);
  CHECK(has(r.content, "exited"));
  CHECK(steady_clock::now() - start < seconds(15));
  // The next call starts a fresh server.
  auto echo = call(f, "mcp_everything_echo", {{"message", "again"}});
  CHECK_FALSE(echo.is_error);
  CHECK(has(echo.content, "Echo: again"));
  auto after = children_running("server-everything");
  REQUIRE(after.size() == 1);
  CHECK(after[0] != before[0]);
}

TEST_CASE_FIXTURE(mcp_fixture, "mcp toolTimeout ends a slow call") {
  auto f = front({{"everything", everything(2)}});
  REQUIRE(find(list(f), "mcp_everything_trigger-long-running-operation"));
  auto r = call(f, "mcp_everything_trigger-long-running-operation",
                {{"duration", 30}, {"steps", 3}});
  CHECK(r.is_error);
  CHECK(has(r.content, "timed out after 2 s"));
  auto echo = call(f, "mcp_everything_echo", {{"message", "still here"}});
  CHECK(has(echo.content, "Echo: still here"));
}

TEST_CASE_FIXTURE(mcp_fixture, "mcp broken server blocks neither the others nor the chat") {
  mcp_server_settings broken;
  broken.type = "stdio";
  broken.command = "/nonexistent/mcp-server";
  auto f = front({{"broken", broken}, {"everything", everything()}});
  auto specs = list(f);
  CHECK(find(specs, "mcp_everything_echo"));
  CHECK(find(specs, "read_file"));
  for (auto& s : specs)
    CHECK(s.name.rfind("mcp_broken_", 0) != 0);
  auto echo = call(f, "mcp_everything_echo", {{"message", "ok"}});
  CHECK(has(echo.content, "Echo: ok"));
  auto unknown = call(f, "mcp_broken_anything", json::object());
  CHECK(unknown.is_error);
  CHECK(has(unknown.content, "not found"));
}

TEST_CASE_FIXTURE(mcp_fixture, "mcp streamable http goes through the SSRF guard") {
  http_server_process srv;
  mcp_server_settings s;
  s.type = "streamableHttp";
  s.url = "http://127.0.0.1:" + std::to_string(srv.port) + "/mcp";
  auto open = front({{"web", s}}, {"127.0.0.1/32"});
  auto specs = list(open);
  REQUIRE(find(specs, "mcp_web_echo"));
  auto echo = call(open, "mcp_web_echo", {{"message", "over http"}});
  CHECK_FALSE(echo.is_error);
  CHECK(has(echo.content, "Echo: over http"));
  auto sum = call(open, "mcp_web_get-sum", {{"a", 1}, {"b", 2}});
  CHECK(has(sum.content, "3"));
  // Without the whitelist a loopback server is refused before connecting.
  auto closed = front({{"web", s}});
  for (auto& spec : list(closed))
    CHECK(spec.name.rfind("mcp_web_", 0) != 0);
}

TEST_CASE_FIXTURE(mcp_fixture, "mcp a one-second toolTimeout still lets a quick call finish") {
  http_server_process srv;
  mcp_server_settings s;
  s.type = "streamableHttp";
  s.url = "http://127.0.0.1:" + std::to_string(srv.port) + "/mcp";
  s.tool_timeout_s = 1;
  auto f = front({{"web", s}}, {"127.0.0.1/32"});
  REQUIRE(find(list(f), "mcp_web_echo"));
  auto echo = call(f, "mcp_web_echo", {{"message", "quick"}});
  INFO(echo.content);
  CHECK_FALSE(echo.is_error);
  CHECK(has(echo.content, "Echo: quick"));
  auto slow = call(f, "mcp_web_trigger-long-running-operation",
                   {{"duration", 10}, {"steps", 2}});
  CHECK(slow.is_error);
  CHECK(has(slow.content, "timed out after 1 s"));
}
