// `nanobot gateway --background|status|logs|stop|restart` and
// `install-service|uninstall-service`: the gateway managed from another
// process through its state file and log (gateway_instance.hpp), or through
// a systemd unit. Each returns the process exit code.
#pragma once

#include "actors/app/gateway_instance.hpp"
#include "actors/app/options.hpp"
#include "config/settings.hpp"

namespace nb {

/// Starts `nanobot gateway --foreground` detached (own session, output to
/// the log file), records it, and returns once its /health answers (0), or
/// it exited or did not answer in time (1, with the log's end).
int gateway_start_background(const options& opts, const settings& cfg);
int gateway_status_command(const options& opts, const settings& cfg);
/// The log's last lines (--tail, default 200); with --follow (default when
/// stdout is a terminal) keeps printing what is appended.
int gateway_logs_command(const options& opts);
/// SIGTERM, then waits (--timeout, default 20 s) for the exit; SIGKILL
/// after that.
int gateway_stop_command(const options& opts, const settings& cfg);
int gateway_restart_command(const options& opts, const settings& cfg);
int gateway_install_service(const options& opts, const settings& cfg);
int gateway_uninstall_service(const options& opts, const settings& cfg);

} // namespace nb
