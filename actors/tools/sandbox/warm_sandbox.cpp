#include "actors/tools/sandbox/warm_sandbox.hpp"

#include <cerrno>
#include <csignal>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "actors/tools/sandbox/pids_cgroup.hpp"
#include "actors/tools/sandbox/slirp_net.hpp"

namespace nb {

namespace {

constexpr const char* warm_waiter_shell = "/bin/sh";

// Commands up to this size are read by the waiter's own `read` (a system
// call per byte, but no process); longer ones by `cat`.
constexpr size_t warm_short_command = 2048;

// The waiter: reads a header line from descriptor `fd` ("s" or "l": how the
// command that follows is read; EOF without one: the sandbox was dropped
// unused), then the command until EOF, byte for byte (IFS= read -r keeps
// blanks and backslashes, the last line needs no newline; the trailing "x"
// keeps the command's own trailing newlines from $(...)'s trimming), and
// execs its arguments with the command appended and `fd` closed. dash
// exports nothing of its own but PWD, which bwrap has set to the same
// directory.
std::string warm_waiter_script(size_t fd) {
  auto n = std::to_string(fd);
  return "IFS= read -r t <&" + n + " || exit 125\n"
         "case $t in\n"
         "s) c=; while IFS= read -r l <&" + n + "; do c=\"$c$l\n\"; done; "
         "c=\"$c$l\";;\n"
         "l) c=$(cat <&" + n + "; printf x); c=${c%x};;\n"
         "*) exit 125;;\n"
         "esac\n"
         "exec \"$@\" \"$c\" " + n + "<&-\n";
}

void add_key_part(std::string& key, const std::string& part) {
  key += part;
  key.push_back('\0');
}

// What is at `path` now, or "-" when nothing is. bwrap mounts on the
// objects it finds when it starts, and a mask over a file that is later
// replaced by a rename (an atomic save of config.json) is detached in every
// namespace (Linux 3.18 on): the same argv no longer means the same view.
// A file: device, inode and change time (a new file has a new one even on
// a reused inode, and so has one renamed away and back). A directory:
// device, inode and birth time, since its change time moves with every
// entry added (sessions/, the workspace); a directory renamed away and
// back is the one case this misses, and nothing here does that.
std::string warm_path_identity(const std::string& path) {
  struct statx st;
  if (::statx(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW,
              STATX_TYPE | STATX_INO | STATX_CTIME | STATX_BTIME, &st)
      != 0)
    return "-";
  bool dir = S_ISDIR(st.stx_mode);
  auto& t = dir ? st.stx_btime : st.stx_ctime;
  bool timed = !dir || (st.stx_mask & STATX_BTIME);
  return std::to_string(st.stx_dev_major) + ":"
         + std::to_string(st.stx_dev_minor) + ":" + std::to_string(st.stx_ino)
         + (timed ? ":" + std::to_string(t.tv_sec) + "."
                      + std::to_string(t.tv_nsec)
                  : std::string{});
}

} // namespace

std::string warm_launch_key(const process_options& o,
                            const sandbox_request& req) {
  std::string key;
  add_key_part(key, o.program);
  // Counts in front of the lists: no argument can pass for an env entry.
  add_key_part(key, std::to_string(o.argv.size()));
  for (size_t i = 0; i + 1 < o.argv.size(); ++i) { // the command aside
    add_key_part(key, o.argv[i]);
    if (o.argv[i].rfind('/', 0) == 0)
      add_key_part(key, warm_path_identity(o.argv[i]));
  }
  add_key_part(key, std::to_string(o.env.size()));
  for (auto& e : o.env)
    add_key_part(key, e);
  add_key_part(key, o.cwd);
  for (auto n : {o.limits.processes, o.limits.memory_mb, o.limits.cpu_s,
                 static_cast<uint64_t>(o.limits.no_core),
                 static_cast<uint64_t>(req.max_processes)})
    add_key_part(key, std::to_string(n));
  return key;
}

bool warm_launch_fits(const process_options& opts) {
  return opts.argv.size() >= 2 && ::access(warm_waiter_shell, X_OK) == 0;
}

std::unique_ptr<warm_sandbox>
warm_sandbox::start(process_options opts, const sandbox_request& req,
                    const sandbox_status& status, std::string& error) {
  if (!warm_launch_fits(opts)) {
    error = "no command to leave out, or no /bin/sh for the waiter";
    return nullptr;
  }
  auto prefix = opts.argv;
  prefix.pop_back();
  // The key (with what is at each path) is taken before bwrap starts: a
  // change while it mounts makes the next call's key differ, never match.
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    error = "socketpair failed";
    return nullptr;
  }
  std::unique_ptr<warm_sandbox> w{new warm_sandbox};
  opts.cancelled = nullptr;
  opts.started = nullptr;
  opts.argv = {warm_waiter_shell, "-c", "", "nb-warm"};
  opts.argv.insert(opts.argv.end(), prefix.begin(), prefix.end());
  w->launch_ = prepare_sandboxed(std::move(opts), req, status);
  auto& lo = w->launch_.opts;
  auto tail = prefix.size() + 4; // the waiter's part of the argv
  auto bwrap_part = lo.argv.size() - tail;
  lo.argv[bwrap_part + 2] = warm_waiter_script(3 + lo.inherit_fds.size());
  lo.inherit_fds.push_back(pair[1]);
  // The key of the cold launch this one stands for: the same bwrap argv,
  // then the program's argv with a command.
  auto cold = lo;
  cold.argv.resize(bwrap_part);
  cold.argv.insert(cold.argv.end(), prefix.begin(), prefix.end());
  cold.argv.emplace_back();
  w->key_ = warm_launch_key(cold, req);
  w->sp_ = start_process(lo, false);
  ::close(pair[1]);
  if (w->sp_.pid < 0) {
    ::close(pair[0]);
    error = w->sp_.error;
    w->reaped_ = true;
    return nullptr;
  }
  w->command_fd_ = pair[0];
  return w;
}

warm_sandbox::~warm_sandbox() {
  if (command_fd_ >= 0)
    ::close(command_fd_);
  if (!reaped_ && sp_.pid > 0) {
    if (launch_.cgroup)
      launch_.cgroup->kill_all();
    ::killpg(sp_.pid, SIGKILL);
    ::kill(sp_.pid, SIGKILL);
    int status = 0;
    while (::waitpid(sp_.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  for (int fd : {sp_.out_fd, sp_.err_fd, sp_.stdin_fd})
    if (fd >= 0)
      ::close(fd);
}

pid_t warm_sandbox::network_pid() const {
  return launch_.net ? launch_.net->pid() : -1;
}

bool warm_sandbox::alive() {
  if (reaped_)
    return false;
  int status = 0;
  if (::waitpid(sp_.pid, &status, WNOHANG) == sp_.pid)
    reaped_ = true;
  return !reaped_;
}

std::optional<process_result> warm_sandbox::run(const std::string& command,
                                                const process_options& opts) {
  if (command_fd_ < 0 || !alive())
    return std::nullopt;
  auto text = (command.size() <= warm_short_command ? "s\n" : "l\n") + command;
  for (size_t sent = 0; sent < text.size();) {
    auto n = ::send(command_fd_, text.data() + sent, text.size() - sent,
                    MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return std::nullopt;
    sent += static_cast<size_t>(n);
  }
  ::close(command_fd_); // the waiter's EOF: the command starts
  command_fd_ = -1;
  auto r = wait_process(sp_, opts);
  reaped_ = true;
  sp_.out_fd = sp_.err_fd = -1;
  if (launch_.cgroup)
    launch_.cgroup->kill_all();
  return r;
}

} // namespace nb
