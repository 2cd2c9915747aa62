// `nanobot gateway`: every actor in one process, until SIGINT/SIGTERM;
// its sub-actions and --background in gateway_control.hpp.
#include <algorithm>
#include <csignal>
#include <iostream>

#include "actors/app/commands.hpp"
#include "actors/app/gateway_control.hpp"
#include "actors/app/load_config.hpp"
#include "actors/tools/side_files.hpp"
#include "actors/app/shutdown_signals.hpp"
#include "actors/channels/api/api_server.hpp"
#include "actors/channels/gateway_http/gateway_http_server.hpp"
#include "actors/common/heap.hpp"
#include "actors/common/log.hpp"
#include "actors/provider/provider_registry.hpp"
#include "actors/supervisor/runtime.hpp"

namespace nb {

namespace {

const std::vector<std::string>& gateway_actions() {
  static const std::vector<std::string> all{
    "status",           "logs", "stop", "restart", "install-service",
    "uninstall-service"};
  return all;
}

} // namespace

int cmd_gateway(const options& opts) {
  const auto& action = opts.subcommand;
  if (!action.empty()
      && std::find(gateway_actions().begin(), gateway_actions().end(), action)
           == gateway_actions().end()) {
    std::cerr << "nanobot gateway: "
              << unknown_word("action", action, gateway_actions())
              << " (actions: status, logs, stop, restart, install-service, "
                 "uninstall-service)\n";
    return 2;
  }
  if (opts.foreground && opts.background) {
    std::cerr << "nanobot gateway: --foreground and --background cannot be "
                 "used together\n";
    return 2;
  }
  if (action == "logs")
    return gateway_logs_command(opts);
  if (!action.empty() || opts.background) {
    auto cfg = load_config_or_report(opts);
    if (!cfg)
      return 2;
    if (opts.port)
      cfg->gateway.port = *opts.port;
    if (action == "status")
      return gateway_status_command(opts, *cfg);
    if (action == "stop")
      return gateway_stop_command(opts, *cfg);
    if (action == "restart")
      return gateway_restart_command(opts, *cfg);
    if (action == "install-service")
      return gateway_install_service(opts, *cfg);
    if (action == "uninstall-service")
      return gateway_uninstall_service(opts, *cfg);
    return gateway_start_background(opts, *cfg);
  }
  // In the foreground: this process is the gateway (--foreground, the
  // original's flag for service files, says so explicitly).
  log::set_level(opts.verbose ? "debug" : "info");
  auto cfg = load_config_or_report(opts);
  if (!cfg)
    return 2;
  if (opts.port)
    cfg->gateway.port = *opts.port;
  read_tool_side_files(*cfg);
  auto lg = log::get("gateway");
  auto signals = block_shutdown_signals();
  try {
    runtime rt{*cfg, /*background=*/true};
    auto choice = choose_provider(*cfg);
    if (choice.ready())
      lg->info("model {} via {} at {}", cfg->agent.model, choice.name,
               choice.api_base);
    else
      lg->warn("no usable provider: {}", choice.problem);
    // The API listens before /health answers: whoever waits for /health
    // (a service manager, a script, the bench) may call the API at once.
    // The main thread serves it while it waits for the signal.
    api_server api{rt.system(), rt.router(), *cfg, api_limits{},
                   api_loop::caller_first};
    gateway_http_server health{rt.system(), rt.stats(), *cfg};
    health.serve_channels(rt.channels());
    lg->info("gateway ready: API on http://{}:{}/v1, health on http://{}:{} "
             "({} heap)",
             cfg->api.host, api.port(), cfg->gateway.host, health.port(),
             heap_allocator_name());
    int sig = api.serve_until_signal(signals);
    auto drain = std::chrono::seconds(cfg->gateway.drain_s);
    lg->info("{} received: shutting down (running turns get {} s to finish)",
             sig == SIGINT ? "SIGINT" : "SIGTERM", drain.count());
    end_process_on_second_signal_or_after(signals,
                                          drain + std::chrono::seconds(5));
    // No new requests; those waiting get their answers while turns drain.
    api.refuse_new();
    rt.drain(drain);
    // HTTP threads that talked to actors keep a reference to CAF's logger in
    // thread-local storage; they must be gone before the actor system ends.
    api.stop();
    health.stop();
    rt.shutdown(std::chrono::seconds(0));
    lg->info("stopped cleanly");
    return 0;
  } catch (const std::exception& e) {
    lg->error("{}", e.what());
    return 1;
  }
}

} // namespace nb
