#include "actors/cluster/member.hpp"

#include <thread>

#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/cluster/connector.hpp"
#include "actors/cluster/net.hpp"
#include "actors/cluster/node.hpp"
#include "actors/common/handoff_sharing.hpp"
#include "actors/common/log.hpp"
#include "actors/provider/provider.hpp"
#include "actors/stats/stats.hpp"
#include "actors/tools/tools_front.hpp"
#include "messages/type_ids.hpp"

namespace nb {

std::string node_id_for(const cluster_settings& cluster,
                        const std::string& role, const endpoint& listen) {
  if (!cluster.node_id.empty())
    return cluster.node_id;
  // A fixed port names the node across restarts (so a restarted node gets
  // its old share of keys back); an ephemeral one cannot, use the pid.
  if (listen.port != 0)
    return role + "@" + listen.text();
  return role + "@" + listen.host + "/pid" + std::to_string(::getpid());
}

namespace {

struct member_plan {
  endpoint listen;
  std::vector<endpoint> peers;
};

std::optional<member_plan> plan(const cluster_settings& c, std::string& error) {
  member_plan p;
  auto l = parse_endpoint(c.listen, "cluster.listen", error);
  if (!l)
    return std::nullopt;
  p.listen = *l;
  if (c.peers.empty()) {
    error = "cluster.peers: an agent or tools node needs the gateway's "
            "host:port here";
    return std::nullopt;
  }
  for (size_t i = 0; i < c.peers.size(); ++i) {
    auto e = parse_endpoint(c.peers[i],
                            "cluster.peers[" + std::to_string(i) + "]", error);
    if (!e)
      return std::nullopt;
    p.peers.push_back(*e);
  }
  return p;
}

} // namespace

int run_member_node(const settings& cfg, const cluster_settings& cluster,
                    const std::string& role, const sigset_t& signals) {
  auto lg = log::get("cluster");
  std::string error;
  auto p = plan(cluster, error);
  if (!p) {
    lg->error("{}", error);
    return 2;
  }
  caf::actor_system_config sys_cfg;
  if (auto e = prepare_network(sys_cfg, cluster); !e.empty()) {
    lg->error("{}", e);
    return 2;
  }
  auto threads = cfg.gateway.scheduler_threads > 0
                   ? cfg.gateway.scheduler_threads
                   : static_cast<int>(
                       std::max(2u, std::thread::hardware_concurrency()));
  use_handoff_scheduler(sys_cfg, threads);
  sys_cfg.set("logger.verbosity", caf::atom("quiet"));
  register_messages(sys_cfg);
  caf::actor_system sys{sys_cfg};
  session_services svc;
  svc.stats = spawn_stats(sys);
  if (role == "agent")
    svc.provider = spawn_provider(sys, cfg, svc.stats);
  svc.tools = spawn_tools(sys, cfg, svc.stats);
  auto connector = spawn_connector(sys, p->peers, uses_tls(cluster));
  auto id = node_id_for(cluster, role, p->listen);
  auto node = sys.spawn(node_impl, id, role, p->listen.text(), cfg, cluster,
                        svc, connector);
  auto stop_all = [&] {
    for (auto a : {caf::actor_cast<caf::actor>(node),
                   caf::actor_cast<caf::actor>(svc.provider),
                   caf::actor_cast<caf::actor>(svc.tools),
                   caf::actor_cast<caf::actor>(svc.stats),
                   caf::actor_cast<caf::actor>(connector)})
      if (a)
        caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  };
  // Published so that peers can open direct connections to this node (and
  // query it); the gateway gets its handle when it joins. Port 0 is bound
  // by the OS here, in one step: a port picked beforehand and bound later
  // could be taken meanwhile (an outgoing connection's local port), which
  // made a restarted agent fail to start now and then.
  auto port = publish_on(sys, node, p->listen, uses_tls(cluster));
  if (!port) {
    lg->error("cluster.listen: cannot listen on {}: {}", p->listen.text(),
              sys.render(port.error()));
    stop_all();
    return 1;
  }
  endpoint bound{p->listen.host, *port};
  lg->info("{} node {} listening on {}; joining {}", role, id, bound.text(),
           cluster.peers.front());
  // The gateway shows the address the node reports: the one it is on.
  caf::anon_send(node, connect_atom::value, bound.text());
  int sig = 0;
  sigwait(&signals, &sig);
  lg->info("{} received: stopping node {}",
           sig == SIGINT ? "SIGINT" : "SIGTERM", id);
  sys.middleman().close(*port);
  stop_all();
  for (int i = 0; i < 50 && sys.registry().running() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return 0;
}

} // namespace nb
