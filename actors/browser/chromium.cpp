#include "actors/browser/chromium.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "actors/tools/child_spawn.hpp"

extern char** environ;

namespace nb {

namespace fs = std::filesystem;

std::string find_executable(const std::string& name) {
  if (name.empty())
    return {};
  auto usable = [](const std::string& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos)
    return usable(name) ? fs::absolute(name).string() : std::string{};
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    auto end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    auto dir = dirs.substr(start, end - start);
    if (!dir.empty() && usable(dir + "/" + name))
      return dir + "/" + name;
    start = end + 1;
  }
  return {};
}

bool browser_enabled(const browser_settings& cfg) {
  if (cfg.enable)
    return *cfg.enable;
  return !find_executable(cfg.executable).empty();
}

namespace {

// A fresh profile per start: nothing of an earlier run (cookies, cache,
// a crashed profile's lock) carries over.
std::string make_profile(const browser_settings& cfg, std::string& error) {
  std::error_code ec;
  fs::path base = cfg.user_data_dir.empty() ? fs::temp_directory_path(ec)
                                            : fs::path{cfg.user_data_dir};
  fs::create_directories(base, ec);
  std::string tmpl = (base / "nanobot-chromium-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) {
    error = "cannot create a Chromium profile under " + base.string() + ": "
            + std::strerror(errno);
    return {};
  }
  return tmpl;
}

std::vector<std::string> chromium_args(const browser_settings& cfg,
                                       const std::string& program,
                                       const std::string& profile) {
  std::vector<std::string> a{program};
  if (cfg.headless)
    a.push_back("--headless");
  // Chromium's own sandbox needs user namespaces it cannot have as root.
  if (::geteuid() == 0)
    a.push_back("--no-sandbox");
  for (const char* flag :
       {"--remote-debugging-pipe", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--no-default-browser-check",
        "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-default-apps", "--disable-extensions",
        "--disable-breakpad", "--disable-dev-shm-usage", "--mute-audio",
        "--password-store=basic", "--use-mock-keychain",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--disable-features=Translate,MediaRouter,OptimizationHints",
        "--window-size=1280,900"})
    a.emplace_back(flag);
  a.push_back("--user-data-dir=" + profile);
  a.emplace_back("about:blank");
  return a;
}

struct group_member {
  fs::path dir; ///< /proc/<pid>
  char state;   ///< 'Z': dead, not reaped yet
};

// The processes of group `pgid`, from /proc/<pid>/stat.
std::vector<group_member> group_members(pid_t pgid) {
  std::vector<group_member> out;
  std::error_code ec;
  for (auto& d : fs::directory_iterator("/proc", ec)) {
    auto name = d.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    std::ifstream stat(d.path() / "stat");
    std::string line;
    if (!std::getline(stat, line))
      continue;
    // After "(name)": state, ppid, pgrp.
    auto close = line.rfind(')');
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (close != std::string::npos && close + 2 < line.size()
        && std::sscanf(line.c_str() + close + 2, "%c %ld %ld", &state, &ppid,
                       &pgrp)
             == 3
        && pgrp == pgid)
      out.push_back({d.path(), state});
  }
  return out;
}

// Whether a process of group `pgid` still runs (zombies do not count).
bool group_alive(pid_t pgid) {
  for (auto& m : group_members(pgid))
    if (m.state != 'Z')
      return true;
  return false;
}

} // namespace

chromium_process::~chromium_process() {
  stop();
}

std::string chromium_process::start(const browser_settings& cfg) {
  stop();
  exit_reason_.clear();
  auto program = find_executable(cfg.executable);
  if (program.empty())
    return "Chromium not found (tools.browser.executable \"" + cfg.executable
           + "\"); install it (apt-get install chromium) or set the path";
  std::string error;
  profile_ = make_profile(cfg, error);
  if (profile_.empty())
    return error;
  int in[2], out[2]; // in: we write, Chromium reads; out: the reverse
  if (::pipe2(in, O_CLOEXEC) != 0)
    return std::string{"pipe: "} + std::strerror(errno);
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return std::string{"pipe: "} + std::strerror(errno);
  }
  child_spec spec;
  spec.program = program;
  spec.argv = chromium_args(cfg, program, profile_);
  for (char** e = environ; e && *e; ++e)
    spec.env.emplace_back(*e);
  spec.extra_fds = {in[0], out[1]};
  spec.die_with_parent = true;
  spec.new_group = true;
  pid_ = spawn_child(spec, error);
  ::close(in[0]);
  ::close(out[1]);
  if (pid_ < 0) {
    ::close(in[1]);
    ::close(out[0]);
    std::error_code ec;
    fs::remove_all(profile_, ec);
    profile_.clear();
    return "cannot start " + program + ": " + error;
  }
  to_browser_ = in[1];
  from_browser_ = out[0];
  return {};
}

bool chromium_process::alive() {
  if (pid_ <= 0)
    return false;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0)
    return true;
  if (r == pid_) {
    exit_reason_ = WIFSIGNALED(status)
                     ? "killed by signal " + std::to_string(WTERMSIG(status))
                     : "exited with status "
                         + std::to_string(WEXITSTATUS(status));
    // The rest of the group (renderers, zygote) goes with it.
    ::kill(-pid_, SIGKILL);
    group_ = pid_;
    pid_ = -1;
    return false;
  }
  return false;
}

void chromium_process::stop() {
  if (to_browser_ >= 0)
    ::close(to_browser_);
  if (from_browser_ >= 0)
    ::close(from_browser_);
  to_browser_ = from_browser_ = -1;
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    group_ = pid_;
    pid_ = -1;
  }
  if (group_ > 0) {
    // The renderers and services die on their own schedule; the profile
    // can only go once none of them can write into it any more.
    // (Dead members may stay zombies a while: only live ones count.)
    for (int i = 0; i < 300 && group_alive(group_); ++i) {
      ::kill(-group_, SIGKILL);
      ::usleep(10000);
    }
    group_ = -1;
  }
  if (!profile_.empty()) {
    std::error_code ec;
    fs::remove_all(profile_, ec);
    profile_.clear();
  }
}

int64_t process_group_pss_bytes(pid_t pgid) {
  if (pgid <= 0)
    return 0;
  int64_t kb = 0;
  for (auto& m : group_members(pgid)) {
    std::ifstream rollup(m.dir / "smaps_rollup");
    std::string line;
    // "Pss:   12345 kB", after a header line naming the range.
    while (std::getline(rollup, line))
      if (line.rfind("Pss:", 0) == 0) {
        kb += std::atoll(line.c_str() + 4);
        break;
      }
  }
  return kb * 1024;
}

} // namespace nb
