// `nanobot serve`: the OpenAI-compatible API alone, as the original's
// `serve` runs it: no chat channels, no cron, no heartbeat, no health
// server. -p/-H/-t set the API's port, host and per-request timeout.
#include <csignal>

#include "actors/app/commands.hpp"
#include "actors/app/load_config.hpp"
#include "actors/tools/side_files.hpp"
#include "actors/app/shutdown_signals.hpp"
#include "actors/channels/api/api_server.hpp"
#include "actors/common/log.hpp"
#include "actors/supervisor/runtime.hpp"

namespace nb {

int cmd_serve(const options& opts) {
  log::set_level(opts.verbose ? "debug" : "info");
  auto cfg = load_config_or_report(opts);
  if (!cfg)
    return 2;
  read_tool_side_files(*cfg);
  if (opts.port)
    cfg->api.port = *opts.port;
  if (!opts.host.empty())
    cfg->api.host = opts.host;
  if (opts.timeout_s)
    cfg->api.timeout_s = *opts.timeout_s;
  auto lg = log::get("serve");
  auto signals = block_shutdown_signals();
  try {
    runtime rt{*cfg, /*background=*/false};
    api_server api{rt.system(), rt.router(), *cfg};
    lg->info("serving the API on http://{}:{}/v1", cfg->api.host, api.port());
    int sig = 0;
    sigwait(&signals, &sig);
    lg->info("{} received: shutting down",
             sig == SIGINT ? "SIGINT" : "SIGTERM");
    api.stop();
    rt.shutdown(std::chrono::seconds(15));
    return 0;
  } catch (const std::exception& e) {
    lg->error("{}", e.what());
    return 1;
  }
}

} // namespace nb
