// A loopback cluster for tests: a gateway node, agent nodes and a tools node
// as real child processes of the nanobot executable, a scripted LLM, and a
// test-side CAF client that talks to the gateway's cluster front directly.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "messages/cluster.hpp"
#include "tests/integration/child_process.hpp"
#include "tests/integration/harness.hpp"

namespace nb::test {

/// Occurrences of `needle` in `text`.
size_t count_of(const std::string& text, const std::string& needle);

/// Waits until `needle` occurs at least `n` times in the child's stderr.
bool wait_for_count(const child_process& p, const std::string& needle,
                    size_t n, std::chrono::milliseconds timeout);

class loopback_cluster {
public:
  /// `agents` agent nodes named agent-1..N; a tools node "tools-1" when
  /// `tools_node`. Heartbeats of 200 ms, a peer silent for 1 s is down.
  /// `verbose`: nodes log at debug level (tests read "placed on" lines).
  /// `extra` is merged into every node's `cluster` object (e.g. tls).
  loopback_cluster(fake_llm& llm, int agents, bool tools_node,
                   bool verbose = true,
                   nlohmann::json extra = nlohmann::json::object());
  ~loopback_cluster();

  /// Starts (or restarts) a node; waits until it has joined.
  void start_gateway();
  void start_agent(int i);
  void start_tools();

  child_process& gateway() { return *gateway_; }
  child_process& agent(int i) { return *agents_.at(i); }
  child_process& tools() { return *tools_; }

  /// Posts one chat to the API; the assistant's text ("" on failure).
  std::string chat(const std::string& session, const std::string& text,
                   int timeout_s = 60) const;
  httplib::Result get(const std::string& path) const;
  /// For a failed case: each running node's warnings and errors and the
  /// tail of its log.
  std::string report() const;

  const temp_home& home() const { return home_; }
  /// The gateway's settings (its session store is the cluster's).
  settings gateway_settings() const;
  std::string tools_workspace() const;
  /// Writes a config for one more agent node `id` joining this gateway with
  /// `cluster` merged in (the fixture's timing, not its `extra`).
  std::string extra_agent_config(const std::string& id, nlohmann::json cluster);

private:
  std::string write_config(const std::string& name, nlohmann::json cluster,
                           const std::string& workspace);
  child_process* start(std::unique_ptr<child_process>& slot,
                       const std::string& role, const std::string& config,
                       const std::string& ready_log);

  fake_llm& llm_;
  temp_home home_;
  int agents_count_;
  bool tools_node_;
  bool verbose_;
  int api_port_ = free_port();
  int health_port_ = free_port();
  int cluster_port_ = free_port();
  std::string gateway_cfg_;
  std::vector<std::string> agent_cfgs_;
  std::string tools_cfg_;
  std::unique_ptr<child_process> gateway_;
  std::map<int, std::unique_ptr<child_process>> agents_;
  std::unique_ptr<child_process> tools_;

public:
  int cluster_port() const { return cluster_port_; }
  int api_port() const { return api_port_; }
  /// The gateway node's /health, /stats and /metrics.
  int health_port() const { return health_port_; }
};

/// A test-side actor system with the middleman, for talking to the front.
struct client_system {
  client_system();
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  /// The gateway's front at 127.0.0.1:`port`.
  cluster_front_actor connect(int port);
};

/// Whether `s` begins with `prefix` (the tests compare answers by prefix).
inline bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

} // namespace nb::test
