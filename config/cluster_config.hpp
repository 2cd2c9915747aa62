// The keys of a split deployment: cluster.* (nanobot node) and the session
// store choice (sessionStore, sessionStoreDsn). Loaded beside nb::settings
// from the same file, with the same ${VAR} and NANOBOT_* rules, by the
// concerns that use them (the cluster and the runtime's store).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "config/load.hpp"

namespace nb {

/// cluster.tls: caf_openssl between nodes when cert and key are set.
struct cluster_tls_settings {
  std::string cert; ///< PEM certificate file of this node
  std::string key;  ///< PEM private key file of this node
  std::string ca;   ///< PEM CA file peers' certificates are checked against
};

/// cluster: how nodes find and watch each other.
struct cluster_settings {
  std::string node_id;                  ///< "" = "<role>@<listen>"
  std::string listen = "127.0.0.1:0";   ///< host:port this node publishes on
  std::vector<std::string> peers;       ///< host:port of the gateway node
  cluster_tls_settings tls;
  int32_t heartbeat_ms = 500;           ///< middleman heartbeat interval
  int32_t connection_timeout_ms = 2000; ///< a silent peer is down after this
  int32_t request_timeout_s = 10;       ///< cluster control requests
  int32_t virtual_nodes = 64;           ///< ring points per agent node
  /// The schedules lease: a gateway on standby takes cron and the heartbeat
  /// over this long after their owner stopped renewing it.
  int64_t schedules_lease_ms = 30000;
};

struct cluster_config {
  cluster_settings cluster;
  std::string session_store = "file"; ///< "file" or "postgres"
  std::string session_store_dsn;      ///< libpq connection string
  std::vector<std::string> warnings;
};

using cluster_load_result = std::variant<cluster_config, config_error>;

/// Reads the cluster keys of the config file at `path` (missing file:
/// defaults). Errors name the key path; values never appear in them.
cluster_load_result load_cluster_config(const std::string& path,
                                        const env_lookup& env = system_env());

/// The same from JSON text (tests).
cluster_load_result parse_cluster_config(const std::string& json_text,
                                         const env_lookup& env = system_env());

} // namespace nb
