#include "actors/cluster/cluster_stats.hpp"

#include <memory>

#include <nlohmann/json.hpp>

#include <caf/actor_system.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/timed_request.hpp"
#include "actors/stats/render.hpp"

namespace nb {

std::string merge_nodes_json(const std::string& json_text,
                             const std::vector<node_status>& nodes) {
  auto doc = nlohmann::json::parse(json_text, nullptr, false);
  if (!doc.is_object())
    doc = nlohmann::json::object();
  auto& arr = doc["nodes"] = nlohmann::json::array();
  for (auto& n : nodes)
    arr.push_back({{"node_id", n.node_id},
                   {"role", n.role},
                   {"address", n.address},
                   {"up", n.up},
                   {"rss_bytes", n.rss_bytes},
                   {"actors", n.actors},
                   {"sessions", n.sessions},
                   {"mailbox", n.mailbox},
                   {"uptime_s", n.uptime_s}});
  return doc.dump();
}

std::string append_nodes_prometheus(std::string text,
                                    const std::vector<node_status>& nodes) {
  struct family {
    const char* name;
    const char* help;
    int64_t (*value)(const node_status&);
  };
  static const family families[] = {
    {"node_up", "Cluster node reachable (1) or down (0).",
     [](const node_status& n) -> int64_t { return n.up ? 1 : 0; }},
    {"node_resident_memory_bytes", "Resident set size of a cluster node.",
     [](const node_status& n) { return n.rss_bytes; }},
    {"node_actors", "Running actors on a cluster node.",
     [](const node_status& n) { return n.actors; }},
    {"node_sessions", "Live session actors on a cluster node.",
     [](const node_status& n) { return n.sessions; }},
    {"node_mailbox", "Messages waiting in a cluster node's own actor.",
     [](const node_status& n) { return n.mailbox; }},
    {"node_uptime_seconds", "Seconds since a cluster node started.",
     [](const node_status& n) { return n.uptime_s; }},
  };
  for (auto& f : families) {
    text += std::string{"# HELP nanobot_"} + f.name + " " + f.help + "\n";
    text += std::string{"# TYPE nanobot_"} + f.name + " gauge\n";
    for (auto& n : nodes)
      text += std::string{"nanobot_"} + f.name + "{node=\""
              + prometheus_label_value(n.node_id) + "\",role=\"" + prometheus_label_value(n.role)
              + "\",address=\"" + prometheus_label_value(n.address) + "\"} "
              + std::to_string(f.value(n)) + "\n";
  }
  return text;
}

stats_actor spawn_cluster_stats(caf::actor_system& sys, stats_actor stats,
                                cluster_front_actor front) {
  auto impl = [](stats_actor::pointer self, stats_actor stats,
                 cluster_front_actor front) -> stats_actor::behavior_type {
    return {
      [=](actor_sample& s) { self->send(stats, std::move(s)); },
      [=](turn_sample& s) { self->send(stats, std::move(s)); },
      [=](provider_sample& s) { self->send(stats, std::move(s)); },
      [=](tool_sample& s) { self->send(stats, std::move(s)); },
      [=](gauge_sample& s) { self->send(stats, std::move(s)); },
      [=](stats_atom, const std::string& format) -> caf::result<std::string> {
        auto rp = self->make_response_promise<std::string>();
        timed_request(self, stats, std::chrono::seconds(5), stats_atom::value,
                      format)
          .then(
            [=](std::string& own) mutable {
              timed_request(self, front, std::chrono::seconds(8),
                            cluster_status_atom::value)
                .then(
                  [=](std::vector<node_status>& nodes) mutable {
                    rp.deliver(format == "json"
                                 ? merge_nodes_json(own, nodes)
                                 : append_nodes_prometheus(own, nodes));
                  },
                  [=](caf::error&) mutable { rp.deliver(own); });
            },
            [=](caf::error& err) mutable { rp.deliver(std::move(err)); });
        return rp;
      },
    };
  };
  return sys.spawn(impl, std::move(stats), std::move(front));
}

} // namespace nb
