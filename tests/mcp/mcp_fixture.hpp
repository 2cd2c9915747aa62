// The MCP tests' fixture: the reference servers from npm (installed into
// the build tree on first use), a tools front per test, server-everything
// over HTTP on a loopback port, and helpers to find our child processes.
#pragma once

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
#include "nb_test_paths.hpp" // NB_SOURCE_DIR, NB_BINARY_DIR
#include "tests/support/system_fixture.hpp"

namespace nb::mcp_test {

using nlohmann::json;
using namespace std::chrono;


inline const std::string npm_dir = std::string{NB_BINARY_DIR} + "/mcp-npm";
inline const std::string pkg_dir = npm_dir + "/node_modules/@modelcontextprotocol";

// Installs the reference servers once; concurrent test processes wait on
// the lock instead of racing npm.
inline bool ensure_servers() {
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

inline mcp_server_settings everything(int timeout_s = 30) {
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

// server-everything in an HTTP mode (streamableHttp or sse) on a free
// loopback port (`fixed_port`: that one, to restart a server in place).
struct http_server_process {
  pid_t pid = -1;
  int port = 0;

  explicit http_server_process(const std::string& mode = "streamableHttp",
                               int fixed_port = 0) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = fixed_port > 0 ? fixed_port : ntohs(a.sin_port);
    ::close(fd);
    child_spec spec;
    spec.program = "/usr/bin/env";
    const char* path = std::getenv("PATH");
    spec.argv = {"env", "PORT=" + std::to_string(port), "node",
                 pkg_dir + "/server-everything/dist/index.js",
                 mode};
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
    FAIL("the " << mode << " server did not start");
  }

  ~http_server_process() {
    if (pid > 0) {
      ::killpg(pid, SIGKILL);
      int status;
      ::waitpid(pid, &status, 0);
    }
  }
};

inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline const tool_spec* find(const std::vector<tool_spec>& specs,
                      const std::string& name) {
  for (auto& s : specs)
    if (s.name == name)
      return &s;
  return nullptr;
}

// Our own child processes whose command line mentions `needle`.
inline std::vector<pid_t> children_running(const std::string& needle) {
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


} // namespace nb::mcp_test
