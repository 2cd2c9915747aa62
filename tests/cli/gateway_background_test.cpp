// `nanobot gateway --background`, then status, logs, restart and stop from
// other processes, through the state file under the config folder.
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/cli/cli_home.hpp"

using namespace nb::test;
namespace fs = std::filesystem;

namespace {

bool alive(int pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0)
    return false;
  // A stopped gateway reparented to a PID 1 that never reaps stays a zombie.
  auto stat = read_all("/proc/" + std::to_string(pid) + "/stat");
  auto paren = stat.rfind(')');
  return paren == std::string::npos || stat.substr(paren + 2, 1) != "Z";
}

} // namespace

TEST_CASE("gateway --background starts, reports, restarts and stops") {
  cli_home h;
  gateway_reaper reaper{h};
  auto r = h.nanobot({"gateway", "--background"});
  REQUIRE_MESSAGE(r.code == 0, (r.out + r.err));
  CHECK(has(r.out, "Gateway started in the background."));
  CHECK(has(r.out, "Running: yes"));
  int pid = h.gateway_pid();
  REQUIRE(pid > 0);
  CHECK(alive(pid));
  auto state = nlohmann::json::parse(read_all(h.gateway_state_file()));
  CHECK(state["port"] == h.gateway_port);
  CHECK(state["config_path"] == fs::weakly_canonical(h.config).string());
  CHECK(state["workspace"].is_null());
  CHECK(state["command"][2] == "--foreground");
  CHECK(state["identity"].get<std::string>().rfind(std::to_string(pid) + ":", 0)
        == 0);
  auto log = state["log_path"].get<std::string>();
  CHECK(fs::path{log}.parent_path() == fs::path{h.home.at("logs")});

  r = h.nanobot({"gateway", "status"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "Running: yes"));
  CHECK(has(r.out, "PID: " + std::to_string(pid)));
  CHECK(has(r.out, "Port: " + std::to_string(h.gateway_port)));
  CHECK(has(r.out, "Uptime: "));
  CHECK(has(r.out, "/health answers"));

  // A second start finds the first.
  r = h.nanobot({"gateway", "--background"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "already running"));
  CHECK(h.gateway_pid() == pid);

  r = h.nanobot({"gateway", "logs", "--no-follow", "--tail", "50"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "gateway ready"));
  r = h.nanobot({"gateway", "logs", "--no-follow", "-n", "1"});
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);

  r = h.nanobot({"gateway", "restart"});
  REQUIRE_MESSAGE(r.code == 0, (r.out + r.err));
  int pid2 = h.gateway_pid();
  CHECK(pid2 > 0);
  CHECK(pid2 != pid);
  CHECK_FALSE(alive(pid));
  CHECK(alive(pid2));

  r = h.nanobot({"gateway", "stop"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "Gateway stopped"));
  CHECK(has(r.out, "Running: no"));
  CHECK_FALSE(fs::exists(h.gateway_state_file()));
  CHECK_FALSE(alive(pid2));
  // The shutdown is in the log: SIGTERM, drained, stopped cleanly.
  CHECK(has(read_all(log), "stopped cleanly"));

  r = h.nanobot({"gateway", "stop"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "Gateway is not running."));
  r = h.nanobot({"gateway", "restart"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "nothing to restart"));
  r = h.nanobot({"gateway", "status"});
  CHECK(has(r.out, "Running: no"));
}

TEST_CASE("gateway --background reports a gateway that cannot start") {
  cli_home h;
  gateway_reaper reaper{h};
  // Its health port is taken.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(h.gateway_port));
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(fd, 4) == 0);
  auto r = h.nanobot({"gateway", "--background", "--timeout", "20"});
  ::close(fd);
  CHECK(r.code == 1);
  CHECK(has(r.err, "exited during start-up"));
  CHECK(has(r.err, "The end of "));
  CHECK_FALSE(fs::exists(h.gateway_state_file()));
}

TEST_CASE("gateway --foreground is accepted") {
  cli_home h;
  child_process gw{
    {nanobot_binary(), "gateway", "--foreground", "-c", h.config}, h.home.path};
  REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(60)));
  // No state file: status still sees it through /health.
  auto r = h.nanobot({"gateway", "status"});
  CHECK(has(r.out, "Running: yes"));
  CHECK(has(r.out, "Reason: answering_without_state"));
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(30)) == 0);
}

TEST_CASE("gateway logs -f prints what is appended to the log") {
  cli_home h;
  auto state = h.gateway_state_file();
  auto id = fs::path{state}.stem().string(); // gateway.<id>
  auto log = h.home.at("logs/" + id + ".log");
  write_all(log, "first line\nsecond line\n");
  auto r = h.nanobot({"gateway", "logs", "--no-follow", "-n", "1"});
  CHECK(r.out == "second line\n");
  child_process follow{
    {nanobot_binary(), "gateway", "logs", "-f", "-n", "0", "-c", h.config},
    h.home.path};
  // The follower starts at the end it finds: append until it has started
  // and shows an appended line.
  for (int i = 0; i < 100 && !has(follow.out(), "appended"); ++i) {
    std::ofstream{log, std::ios::app} << "appended line\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(follow.out().rfind("appended line\n", 0) == 0);
  CHECK_FALSE(has(follow.out(), "second line")); // -n 0: no old lines
  follow.signal(SIGTERM);
  follow.wait(std::chrono::seconds(10));
}
