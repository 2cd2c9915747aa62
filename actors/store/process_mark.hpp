// Who holds a lease, precisely enough to tell, on the same machine, that
// the holder is gone: after kill -9 or a power cut the lease file still
// names a process, and waiting out its TTL would keep cron and the
// heartbeat off for no reason.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace nb {

/// One process, as seen from its machine.
struct process_mark {
  std::string host;    ///< gethostname()
  std::string boot_id; ///< /proc/sys/kernel/random/boot_id (new each boot)
  std::string pid_ns;  ///< the PID namespace (containers share a boot id)
  int64_t pid = 0;
  int64_t started = 0; ///< start time in clock ticks since boot (pid reuse)
};

/// This process.
const process_mark& this_process();

/// The mark as JSON; a mark that is not an object with these fields reads
/// as empty (pid 0).
nlohmann::json to_json(const process_mark& m);
process_mark mark_from_json(const nlohmann::json& j);

/// True only when `m` certainly names a process that no longer exists: it
/// ran on this host, in this boot and PID namespace, and no process with
/// that pid and start time is alive (a zombie counts as gone). Anything
/// else (another machine, another container, a reboot, an empty mark) is
/// false: the lease's TTL decides there.
bool certainly_gone(const process_mark& m);

} // namespace nb
