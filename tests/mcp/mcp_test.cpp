// The MCP client through the tools front, against the reference servers
// published on npm: tools listed as mcp_<server>_<tool>, calls, the
// enabledTools filter, toolTimeout, a server killed in the middle of a call
// (restarted on the next one), and a broken server that blocks nobody.
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <thread>

#include <caf/all.hpp>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "actors/tools/child_spawn.hpp"
#include "actors/tools/tools_front.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using nlohmann::json;
using namespace std::chrono;

namespace {

const std::string npm_dir = std::string{NB_BINARY_DIR} + "/mcp-npm";
const std::string pkg_dir = npm_dir + "/node_modules/@modelcontextprotocol";

// Installs the reference servers once; concurrent test processes wait on
// the lock instead of racing npm.
bool ensure_servers() {
  auto everything = pkg_dir + "/server-everything/dist/index.js";
  auto filesystem = pkg_dir + "/server-filesystem/dist/index.js";
  if (std::filesystem::exists(everything)
      && std::filesystem::exists(filesystem))
    return true;
  std::filesystem::create_directories(npm_dir);
  auto cmd = "flock " + npm_dir + "/.lock sh -c 'test -f " + everything
             + " && test -f " + filesystem + " || npm install --prefix "
             + npm_dir + " --no-audit --no-fund --loglevel=error "
             + "@modelcontextprotocol/server-everything@2026.8.31 "
             + "@modelcontextprotocol/server-filesystem@2026.8.31' "
             + "> " + npm_dir + "/install.log 2>&1";
  if (std::system(cmd.c_str()) != 0)
    return false;
  return std::filesystem::exists(everything)
         && std::filesystem::exists(filesystem);
}

mcp_server_settings everything(int timeout_s = 30) {
  mcp_server_settings s;
  s.type = "stdio";
  s.command = "node";
  s.args = {pkg_dir + "/server-everything/dist/index.js", "stdio"};
  s.tool_timeout_s = timeout_s;
  return s;
}

struct mcp_fixture : test::system_fixture {
  caf::scoped_actor self{sys};
  std::string dir;
  std::vector<tools_actor> fronts;

  mcp_fixture() {
    REQUIRE_MESSAGE(ensure_servers(), "npm install of the reference MCP "
                                      "servers failed; see "
                                        << npm_dir << "/install.log");
    char tmpl[] = "/tmp/nb-mcp-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    dir = std::filesystem::canonical(tmpl).string();
    std::ofstream{dir + "/hello.txt"} << "hello from the workspace\n";
  }

  ~mcp_fixture() {
    for (auto& f : fronts)
      caf::anon_send_exit(f, caf::exit_reason::user_shutdown);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  tools_actor front(std::map<std::string, mcp_server_settings> servers,
                    std::vector<std::string> whitelist = {}) {
    settings cfg;
    cfg.agent.workspace = dir;
    cfg.tools.mcp_servers = std::move(servers);
    cfg.tools.ssrf_whitelist = std::move(whitelist);
    fronts.push_back(spawn_tools(sys, cfg, stats_actor{}));
    return fronts.back();
  }

  std::vector<tool_spec> list(tools_actor f) {
    std::vector<tool_spec> out;
    self->request(f, seconds(60), list_tools_atom::value)
      .receive([&](std::vector<tool_spec>& specs) { out = std::move(specs); },
               [&](caf::error& e) { FAIL(to_string(e)); });
    return out;
  }

  tool_result call(tools_actor f, const std::string& name, const json& args,
                   seconds wait = seconds(60)) {
    tool_result out;
    tool_request req;
    req.session_key = "mcp:test";
    req.call = {"c1", name, args.dump()};
    self->request(f, wait, std::move(req))
      .receive([&](tool_result& r) { out = std::move(r); },
               [&](caf::error& e) {
                 out.is_error = true;
                 out.content = to_string(e);
               });
    return out;
  }
};

// server-everything in streamableHttp mode on a free loopback port.
struct http_server_process {
  pid_t pid = -1;
  int port = 0;

  http_server_process() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    ::close(fd);
    child_spec spec;
    spec.program = "/usr/bin/env";
    const char* path = std::getenv("PATH");
    spec.argv = {"env", "PORT=" + std::to_string(port), "node",
                 pkg_dir + "/server-everything/dist/index.js",
                 "streamableHttp"};
    spec.env = {std::string{"PATH="} + (path ? path : "/usr/bin:/bin"),
                "HOME=/tmp"};
    std::string error;
    pid = spawn_child(spec, error);
    REQUIRE_MESSAGE(pid > 0, error);
    auto until = steady_clock::now() + seconds(30);
    while (steady_clock::now() < until) {
      int c = ::socket(AF_INET, SOCK_STREAM, 0);
      a.sin_port = htons(static_cast<uint16_t>(port));
      bool up = ::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
      ::close(c);
      if (up)
        return;
      std::this_thread::sleep_for(milliseconds(100));
    }
    FAIL("the streamable HTTP server did not start");
  }

  ~http_server_process() {
    if (pid > 0) {
      ::killpg(pid, SIGKILL);
      int status;
      ::waitpid(pid, &status, 0);
    }
  }
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const tool_spec* find(const std::vector<tool_spec>& specs,
                      const std::string& name) {
  for (auto& s : specs)
    if (s.name == name)
      return &s;
  return nullptr;
}

// Our own child processes whose command line mentions `needle`.
std::vector<pid_t> children_running(const std::string& needle) {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  while (auto* e = d ? ::readdir(d) : nullptr) {
    auto pid = std::atoi(e->d_name);
    if (pid <= 0)
      continue;
    std::ifstream stat{"/proc/" + std::to_string(pid) + "/stat"};
    std::string line;
    std::getline(stat, line);
    auto close = line.rfind(')');
    if (close == std::string::npos)
      continue;
    std::istringstream rest{line.substr(close + 2)};
    std::string state;
    long ppid = 0;
    rest >> state >> ppid;
    if (ppid != ::getpid())
      continue;
    std::ifstream cmd{"/proc/" + std::to_string(pid) + "/cmdline"};
    std::string args((std::istreambuf_iterator<char>(cmd)), {});
    if (args.find(needle) != std::string::npos)
      out.push_back(pid);
  }
  if (d)
    ::closedir(d);
  return out;
}

} // namespace

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
