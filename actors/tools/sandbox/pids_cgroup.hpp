// Sandbox: a pids cgroup per exec call. The only process-count limit that
// binds root (RLIMIT_NPROC does not), so a fork bomb stops at the limit
// whatever uid the gateway runs as. Used where the gateway may create
// cgroups: cgroup v1's pids hierarchy, or a cgroup v2 subtree delegated to
// it with the pids controller enabled.
#pragma once

#include <cstdint>
#include <string>

namespace nb {

/// Where per-call cgroups go, found once per process: "" when none can be
/// created here (`why` says why).
struct pids_cgroup_root {
  std::string dir;     ///< e.g. /sys/fs/cgroup/pids/<own cgroup>
  std::string version; ///< "v1" or "v2"
  std::string why;     ///< when dir is empty
};

/// Returns the cached probe (the first call creates and removes a test
/// cgroup, and removes empty ones left by a gateway that died).
const pids_cgroup_root& pids_cgroup_probe();

/// One call's cgroup: created with pids.max = `max`, killed and removed by
/// the destructor.
class pids_cgroup {
public:
  explicit pids_cgroup(int64_t max);
  ~pids_cgroup();
  pids_cgroup(const pids_cgroup&) = delete;
  pids_cgroup& operator=(const pids_cgroup&) = delete;

  /// Whether the cgroup exists (false where none can be created).
  bool ok() const {
    return procs_fd_ >= 0;
  }

  /// The open cgroup.procs a child writes "0" to (child_spec).
  int procs_fd() const {
    return procs_fd_;
  }

  /// The most processes it held at once (0 when unknown).
  int64_t peak() const;

  /// SIGKILLs every process in it until it is empty (bounded retries).
  void kill_all();

private:
  std::string dir_;
  int procs_fd_ = -1;
};

} // namespace nb
