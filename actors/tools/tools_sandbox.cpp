// The tools front's check of exec's sandbox. It used to run before the
// gateway started its actors (`bwrap ... true` in new namespaces takes
// ~12 ms, about half of the time to ready); now it runs beside the start,
// and exec is withdrawn afterwards when bubblewrap cannot run here.
#include <memory>

#include "actors/common/blocking_task.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/tools/sandbox/config_workspace.hpp"
#include "actors/tools/sandbox/sandbox_probe.hpp"
#include "actors/tools/stop_with.hpp"
#include "actors/tools/tool_pool.hpp"
#include "actors/tools/tools_front.hpp"

namespace nb {

namespace {

/// exec and the tools that reach its background sessions.
constexpr const char* exec_tool_names[] = {"exec", "list_exec_sessions",
                                           "write_stdin"};

/// A new registry without exec and a new pool for the calls from now on
/// (calls already running finish in the old pool).
void withdraw_exec(tools_front_pointer self) {
  auto& st = self->state;
  auto reg = std::make_shared<tool_registry>(*st.registry);
  withhold_unsandboxable_exec(st, *reg);
  st.registry = std::move(reg);
  st.pool = self->spawn(tool_pool_impl, st.registry, st.base, st.tool_workers,
                        st.stats);
  stop_with(self, st.pool);
  refresh_catalog(self);
}

} // namespace

void withhold_unsandboxable_exec(const tools_state& st, tool_registry& reg) {
  // Unrestricted, exec runs without the sandbox, as in nanobot.
  if (st.sandbox_missing && st.base.restrict_to_workspace)
    for (const char* name : exec_tool_names)
      reg.remove(name);
}

void check_exec_sandbox(tools_front_pointer self) {
  auto& st = self->state;
  if (st.sandbox_checked || !st.base.restrict_to_workspace
      || !st.registry->find("exec"))
    return;
  st.sandbox_checked = true;
  // The status is cached per bwrap path: every later exec finds it ready.
  auto check = blocking_task(self, "nb.sandbox", [bwrap = st.base.bwrap,
                                                   ws = st.base.workspace,
                                                   file = st.base.config_file] {
    // Before any command can run: a config dir that is the workspace has
    // config.json's saves keep the inode the sandbox's mask is on (the
    // runtime did it at start and warned; this front may run elsewhere).
    prepare_config_workspace(ws, file);
    auto& status = sandbox_status_for(bwrap);
    return status.available ? std::string{}
                            : sandbox_unavailable_text(status);
  });
  timed_request(self, check, std::chrono::seconds(30), caf::get_atom::value)
    .then(
      [self](std::string& unavailable) {
        if (unavailable.empty())
          return;
        log::get("tools")->error("{}", unavailable);
        self->state.sandbox_missing = true;
        withdraw_exec(self);
      },
      [self](caf::error& err) {
        // exec still refuses to run outside a sandbox it cannot start.
        log::get("tools")->warn("could not check exec's sandbox: {}",
                                self->system().render(err));
      });
}

} // namespace nb
