#include "actors/tools/sandbox/sandboxed_run.hpp"

#include <memory>

#include <unistd.h>

#include "actors/tools/sandbox/bwrap_args.hpp"
#include "actors/tools/sandbox/config_workspace.hpp"
#include "actors/tools/sandbox/pids_cgroup.hpp"
#include "actors/tools/sandbox/slirp_net.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

sandbox_plan plan_for(const sandbox_request& req) {
  sandbox_plan p;
  p.workspace = req.workspace;
  p.cwd = req.cwd;
  parse_sandbox_network(req.network, p.network);
  // Inside, the command is an ordinary user (no capabilities even in its
  // own namespace); a non-root gateway keeps its uid so files it creates
  // look like its own.
  auto uid = ::geteuid();
  p.uid = uid == 0 ? 65534 : uid;
  auto real = [&](const std::string& path) {
    auto r = resolve_real_path(path, req.workspace);
    return r.ok() ? r.path : std::string{};
  };
  for (auto& b : req.ro_binds)
    if (auto r = real(b); !r.empty())
      p.ro_binds.push_back(r);
  for (auto& b : req.rw_binds)
    if (auto r = real(b); !r.empty())
      p.rw_binds.push_back(r);
  if (!req.config_dir.empty()) {
    auto dir = real(req.config_dir);
    if (dir == req.workspace) {
      // A home whose workspace is the config dir itself: hide what in it
      // is the gateway's, entry by entry, and have config.json's saves
      // keep the inode its mask is on (normally done once at the tools'
      // start; here too, so no sandbox starts before it).
      prepare_config_workspace(req.workspace, req.config_file);
      auto hidden = config_workspace_hidden(dir, req.config_file);
      p.hidden.insert(p.hidden.end(), hidden.begin(), hidden.end());
    } else if (!dir.empty()) {
      p.hidden.push_back(dir);
    }
  }
  return p;
}

} // namespace

sandbox_launch::sandbox_launch() = default;
sandbox_launch::sandbox_launch(sandbox_launch&&) noexcept = default;
sandbox_launch& sandbox_launch::operator=(sandbox_launch&&) noexcept = default;
sandbox_launch::~sandbox_launch() = default;

bool sandbox_wants_outbound(const sandbox_request& req,
                            const sandbox_status& status) {
  sandbox_network net = sandbox_network::loopback_denied;
  parse_sandbox_network(req.network, net);
  return net == sandbox_network::loopback_denied
         && status.outbound_problem.empty();
}

process_options sandboxed_options(process_options opts,
                                  const sandbox_request& req,
                                  const sandbox_status& status,
                                  bool outbound) {
  auto plan = plan_for(req);
  if (outbound) {
    plan.outbound = true;
    plan.info_fd = 3; // bwrap_fds() order, renumbered by spawn_child
    plan.block_fd = 4;
    plan.resolv_fd = 5;
  }
  std::vector<std::string> argv{status.bwrap};
  auto args = bwrap_args(plan);
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), opts.argv.begin(), opts.argv.end());
  opts.argv = std::move(argv);
  opts.program = status.bwrap;
  // $HOME is not mounted: the workspace is home.
  for (auto& e : opts.env)
    if (e.rfind("HOME=", 0) == 0)
      e = "HOME=" + req.workspace;
  return opts;
}

sandbox_launch prepare_sandboxed(process_options opts,
                                 const sandbox_request& req,
                                 const sandbox_status& status) {
  sandbox_launch out;
  // Outbound access needs slirp4netns; without it (or if its pipes fail)
  // "loopback-denied" falls back to no network, never to the host's.
  bool outbound = sandbox_wants_outbound(req, status);
  if (outbound) {
    out.net = std::make_unique<slirp_network>(status.slirp4netns);
    outbound = out.net->ok();
  }
  opts = sandboxed_options(std::move(opts), req, status, outbound);
  if (outbound) {
    opts.inherit_fds = out.net->bwrap_fds();
    opts.started = [n = out.net.get()](pid_t pid) { return n->attach(pid); };
  }
  out.cgroup = std::make_unique<pids_cgroup>(req.max_processes);
  opts.cgroup_procs_fd = out.cgroup->procs_fd();
  out.opts = std::move(opts);
  return out;
}

process_result run_sandboxed(process_options opts, const sandbox_request& req,
                             const sandbox_status& status) {
  auto launch = prepare_sandboxed(std::move(opts), req, status);
  auto r = run_process(launch.opts);
  launch.cgroup->kill_all();
  return r;
}

} // namespace nb
