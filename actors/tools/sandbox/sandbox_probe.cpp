#include "actors/tools/sandbox/sandbox_probe.hpp"

#include <map>
#include <mutex>

#include <unistd.h>

#include "actors/common/strings.hpp"
#include "actors/tools/exec_process.hpp"
#include "actors/tools/sandbox/bwrap_args.hpp"
#include "actors/tools/sandbox/executables.hpp"
#include "actors/tools/sandbox/pids_cgroup.hpp"
#include "actors/tools/sandbox/slirp_net.hpp"

namespace nb {

namespace {

sandbox_status probe(const std::string& bwrap) {
  sandbox_status s;
  slirp_network::available(s.slirp4netns, s.outbound_problem);
  if (::access(bwrap.c_str(), X_OK) != 0) {
    s.problem = "bubblewrap (bwrap) is not installed";
    s.fix = "install it: apt-get install bubblewrap (Debian/Ubuntu), "
            "dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch)";
    return s;
  }
  s.bwrap = bwrap;
  // The namespaces exec uses, around a no-op: what fails here would fail
  // every command.
  process_options o;
  o.program = bwrap;
  o.argv = {bwrap,           "--unshare-user", "--unshare-pid",
            "--unshare-ipc", "--unshare-net",  "--die-with-parent",
            "--ro-bind",     "/",              "/",
            "--proc",        "/proc",          "--",
            "true"};
  o.env = {"PATH=/usr/bin:/bin"};
  o.cwd = "/";
  o.timeout_s = 10;
  o.capture_limit = 2000;
  auto r = run_process(o);
  if (!r.error.empty() || r.timed_out || r.exit_code != 0) {
    s.problem = "bwrap cannot create namespaces here: "
                + trim_space(!r.error.empty() ? r.error
                       : r.timed_out   ? std::string{"it did not finish"}
                                       : r.err.head);
    s.fix = "allow unprivileged user namespaces (sysctl "
            "kernel.unprivileged_userns_clone=1, or "
            "user.max_user_namespaces > 0; in a container: run it with "
            "--security-opt seccomp=unconfined or a profile that allows "
            "clone(CLONE_NEWUSER))";
    return s;
  }
  s.available = true;
  auto& cg = pids_cgroup_probe();
  if (!cg.dir.empty())
    s.process_limit = "cgroup " + cg.version;
  else if (::geteuid() != 0)
    s.process_limit = "RLIMIT_NPROC";
  return s;
}

} // namespace

std::string find_bwrap() {
  auto found = first_executable({"/usr/bin/bwrap", "/bin/bwrap",
                                 "/usr/local/bin/bwrap"});
  return found.empty() ? "/usr/bin/bwrap" : found;
}

const sandbox_status& sandbox_status_for(const std::string& bwrap) {
  static std::mutex mu;
  static std::map<std::string, sandbox_status> cache;
  auto path = bwrap.empty() ? find_bwrap() : bwrap;
  std::lock_guard lock{mu};
  auto it = cache.find(path);
  if (it == cache.end())
    it = cache.emplace(path, probe(path)).first;
  return it->second;
}

std::string sandbox_unavailable_text(const sandbox_status& s) {
  return "exec is disabled: with tools.restrictToWorkspace every command "
         "runs in a bubblewrap sandbox, and "
         + s.problem + ". To enable exec, " + s.fix + ".";
}

bool exec_sandboxed(const settings& cfg) {
  return cfg.tools.restrict_to_workspace || cfg.tools.exec.sandbox == "bwrap";
}

std::string describe_sandbox(const settings& cfg, const sandbox_status& s) {
  auto& exec = cfg.tools.exec;
  if (!exec.enable)
    return "exec disabled (tools.exec.enable is false)";
  if (!exec_sandboxed(cfg))
    return std::string{"off: commands run unsandboxed "}
           + "(tools.restrictToWorkspace is false, tools.exec.sandbox empty)"
           + (s.available ? "" : "; bubblewrap: " + s.problem);
  if (!s.available)
    return "✗ unavailable, exec refused: " + s.problem + " (" + s.fix + ")";
  std::string net = exec.network;
  if (exec.network == "loopback-denied" && !s.outbound_problem.empty())
    net += " (no network at all: " + s.outbound_problem + ")";
  return "✓ bubblewrap (" + s.bwrap + "), network " + net
         + ", process limit "
         + (s.process_limit.empty()
              ? std::string{"none beyond the PID namespace and the timeout "
                            "(root without a writable pids cgroup)"}
              : s.process_limit + " (" + std::to_string(exec.max_processes)
                  + ")");
}

} // namespace nb
