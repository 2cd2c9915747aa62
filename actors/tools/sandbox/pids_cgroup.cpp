#include "actors/tools/sandbox/pids_cgroup.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nb {

namespace {

namespace fs = std::filesystem;

constexpr const char* prefix = "nanobot-exec-";

std::string read_all(const std::string& path) {
  std::ifstream in{path};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool write_file(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  bool ok = ::write(fd, text.data(), text.size())
            == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// The gateway's own cgroup in the hierarchy that matches `v1_controller`
// ("pids") or, for "", the unified (v2) one.
std::string own_cgroup(const std::string& v1_controller) {
  std::istringstream in{read_all("/proc/self/cgroup")};
  std::string line;
  while (std::getline(in, line)) {
    auto a = line.find(':');
    auto b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos)
      continue;
    auto controllers = line.substr(a + 1, b - a - 1);
    bool match = v1_controller.empty()
                   ? line.compare(0, a, "0") == 0 && controllers.empty()
                   : ("," + controllers + ",").find("," + v1_controller + ",")
                       != std::string::npos;
    if (match)
      return line.substr(b + 1);
  }
  return {};
}

// Whether a cgroup under `dir` gets a pids.max: a throwaway child is made
// and removed again.
bool can_limit_under(const std::string& dir) {
  auto test = dir + "/" + prefix + "probe-" + std::to_string(::getpid());
  if (::mkdir(test.c_str(), 0755) != 0 && errno != EEXIST)
    return false;
  bool ok = ::access((test + "/pids.max").c_str(), W_OK) == 0
            && ::access((test + "/cgroup.procs").c_str(), W_OK) == 0;
  ::rmdir(test.c_str());
  return ok;
}

// Empty per-call cgroups of gateways that died: rmdir only succeeds on an
// empty cgroup, so a live one is never touched.
void sweep_stale(const std::string& dir) {
  std::error_code ec;
  for (auto& e : fs::directory_iterator(dir, ec)) {
    auto name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0)
      continue;
    auto rest = name.substr(std::strlen(prefix));
    auto pid = std::atoi(rest.c_str());
    if (pid > 0 && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH)
      ::rmdir(e.path().c_str());
  }
}

pids_cgroup_root probe() {
  struct hierarchy {
    const char* controller; // "" = the unified (v2) hierarchy
    const char* mount;
    const char* version;
  };
  pids_cgroup_root r;
  for (auto h : {hierarchy{"pids", "/sys/fs/cgroup/pids", "v1"},
                 hierarchy{"", "/sys/fs/cgroup", "v2"}}) {
    auto own = own_cgroup(h.controller);
    if (own.empty())
      continue;
    auto dir = h.mount + (own == "/" ? std::string{} : own);
    if (can_limit_under(dir)) {
      sweep_stale(dir);
      return {dir, h.version, {}};
    }
    if (r.why.empty())
      r.why = "cannot create cgroups with a pids limit under " + dir;
  }
  if (r.why.empty())
    r.why = "no pids cgroup hierarchy";
  return r;
}

std::atomic<uint64_t> next_id{0};

} // namespace

const pids_cgroup_root& pids_cgroup_probe() {
  static const pids_cgroup_root root = probe();
  return root;
}

pids_cgroup::pids_cgroup(int64_t max) {
  auto& root = pids_cgroup_probe();
  if (root.dir.empty())
    return;
  dir_ = root.dir + "/" + prefix + std::to_string(::getpid()) + "-"
         + std::to_string(next_id++);
  if (::mkdir(dir_.c_str(), 0755) != 0) {
    dir_.clear();
    return;
  }
  if (max > 0 && !write_file(dir_ + "/pids.max", std::to_string(max))) {
    ::rmdir(dir_.c_str());
    dir_.clear();
    return;
  }
  procs_fd_ = ::open((dir_ + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (procs_fd_ < 0) {
    ::rmdir(dir_.c_str());
    dir_.clear();
  }
}

pids_cgroup::~pids_cgroup() {
  if (procs_fd_ >= 0)
    ::close(procs_fd_);
  if (dir_.empty())
    return;
  kill_all();
  // A killed process leaves the cgroup a moment after it dies.
  for (int i = 0; i < 200; ++i) {
    if (::rmdir(dir_.c_str()) == 0 || errno != EBUSY)
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int64_t pids_cgroup::peak() const {
  if (dir_.empty())
    return 0;
  auto text = read_all(dir_ + "/pids.peak");
  return text.empty() ? 0 : std::atoll(text.c_str());
}

void pids_cgroup::kill_all() {
  if (dir_.empty())
    return;
  // cgroup v2 kills the whole subtree in one write; v1 needs a loop (a
  // process may fork between the read and the kill, so repeat until empty).
  if (write_file(dir_ + "/cgroup.kill", "1"))
    return;
  // A process that was already dying stays listed a moment: the re-checks
  // come every 200 us (2 ms before, most of which was waited for nothing
  // after an ordinary exit), 200 ms in all as before.
  for (int round = 0; round < 1000; ++round) {
    std::istringstream in{read_all(dir_ + "/cgroup.procs")};
    long pid;
    bool any = false;
    while (in >> pid) {
      any = true;
      ::kill(static_cast<pid_t>(pid), SIGKILL);
    }
    if (!any)
      return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

} // namespace nb
