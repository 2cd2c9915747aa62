// `nanobot node --role gateway|agent|tools`: one part of a cluster.
#include <csignal>
#include <iostream>
#include <memory>

#include <caf/scoped_actor.hpp>

#include "actors/app/commands.hpp"
#include "actors/app/load_config.hpp"
#include "actors/tools/side_files.hpp"
#include "actors/app/shutdown_signals.hpp"
#include "actors/channels/api/api_server.hpp"
#include "actors/channels/gateway_http/gateway_http_server.hpp"
#include "actors/cluster/cluster_stats.hpp"
#include "actors/cluster/front.hpp"
#include "actors/cluster/member.hpp"
#include "actors/cluster/net.hpp"
#include "actors/common/log.hpp"
#include "actors/supervisor/runtime.hpp"
#include "config/cluster_config.hpp"

namespace nb {

namespace {

/// The gateway node: channels, the API, /health and /stats, the session
/// store, and the cluster front that shards sessions over agent nodes.
int run_gateway_node(const settings& cfg, const cluster_settings& cluster,
                     const sigset_t& signals) {
  auto lg = log::get("gateway");
  std::string error;
  auto listen = parse_endpoint(cluster.listen, "cluster.listen", error);
  if (!listen) {
    lg->error("{}", error);
    return 2;
  }
  try {
    auto id = cluster.node_id.empty() ? "gateway@" + listen->text()
                                          : cluster.node_id;
    // The front is the tree's entry: the API, the channels, cron and the
    // heartbeat all send into it; the local router can let sessions go
    // (member_router_impl) and serves every key while no agent is up.
    runtime_hooks hooks;
    hooks.prepare = [cluster](caf::actor_system_config& c) {
      return prepare_network(c, cluster);
    };
    // The front is kept here: rt.router() is the inbox in front of it (the
    // gateway node journals before it forwards), nodes join the front.
    auto made = std::make_shared<cluster_front_actor>();
    hooks.entry = [id, cluster, made](caf::actor_system& sys, router_actor local,
                      const session_services& svc) -> router_actor {
      *made = sys.spawn(front_impl, id, cluster, svc,
                        caf::actor_cast<member_router_actor>(local));
      return *made;
    };
    runtime rt{cfg, /*background=*/true, std::move(hooks)};
    auto& sys = rt.system();
    auto front = *made;
    auto port = publish_on(sys, front, *listen, uses_tls(cluster));
    if (!port) {
      lg->error("cluster.listen: cannot listen on {}: {}", listen->text(),
                sys.render(port.error()));
      caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
      return 1;
    }
    endpoint bound{listen->host, *port};
    // /stats and /metrics list every node next to the gateway's figures.
    auto stats = spawn_cluster_stats(sys, rt.stats(), front);
    gateway_http_server health{sys, stats, cfg};
    health.serve_channels(rt.channels());
    api_server api{sys, rt.router(), cfg};
    lg->info("gateway node {} ready: cluster on {}{}, API on http://{}:{}/v1, "
             "health on http://{}:{}", id, bound.text(),
             uses_tls(cluster) ? " (TLS)" : "", cfg.api.host, api.port(),
             cfg.gateway.host, health.port());
    int sig = 0;
    sigwait(&signals, &sig);
    auto drain = std::chrono::seconds(cfg.gateway.drain_s);
    lg->info("{} received: shutting down (running turns get {} s to finish)",
             sig == SIGINT ? "SIGINT" : "SIGTERM", drain.count());
    end_process_on_second_signal_or_after(signals,
                                          drain + std::chrono::seconds(5));
    api.refuse_new();
    if (drain.count() > 0) {
      caf::scoped_actor self{sys};
      self->request(front, drain, flush_atom::value)
        .receive([](int32_t) {}, [](caf::error&) {});
    }
    api.stop();
    health.stop();
    sys.middleman().close(*port);
    caf::anon_send_exit(stats, caf::exit_reason::user_shutdown);
    rt.shutdown(std::chrono::seconds(5));
    lg->info("stopped cleanly");
    return 0;
  } catch (const std::exception& e) {
    lg->error("{}", e.what());
    return 1;
  }
}

} // namespace

int cmd_node(const options& opts) {
  log::set_level(opts.verbose ? "debug" : "info");
  if (opts.role.empty()) {
    std::cerr << "nanobot node: --role is required (gateway, agent or tools)\n";
    return 2;
  }
  auto cfg = load_config_or_report(opts);
  if (!cfg)
    return 2;
  if (opts.port)
    cfg->gateway.port = *opts.port;
  read_tool_side_files(*cfg);
  auto cc = load_cluster_config(cfg->config_path);
  if (auto* err = std::get_if<config_error>(&cc)) {
    std::cerr << "nanobot: " << err->message() << "\n";
    return 2;
  }
  auto& cluster = std::get<cluster_config>(cc);
  for (auto& w : cluster.warnings)
    log::get("cluster")->warn("{}", w);
  auto signals = block_shutdown_signals();
  if (opts.role == "gateway")
    return run_gateway_node(*cfg, cluster.cluster, signals);
  return run_member_node(*cfg, cluster.cluster, opts.role, signals);
}

} // namespace nb
