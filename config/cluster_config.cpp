#include "config/cluster_config.hpp"

#include <optional>

#include <nlohmann/json.hpp>

#include "config/pipeline.hpp"
#include "config/section_reader.hpp"

namespace nb {

namespace {

using nlohmann::json;

using config::field;
using cluster_reader = config::section_reader;

cluster_load_result cluster_from_root(const json& root, const env_lookup& env) {
  cluster_config out;
  cluster_reader r{env, std::nullopt};
  auto top = root.is_object() ? root : json::object();
  auto cl = r.object(top, "cluster", "cluster");
  auto tls = r.object(cl, "tls", "cluster.tls");
  auto& c = out.cluster;
  if (auto v = r.text(cl, "nodeId", "cluster.nodeId")) c.node_id = *v;
  if (auto v = r.text(cl, "listen", "cluster.listen")) c.listen = *v;
  if (auto v = r.integer(cl, "heartbeatMs", "cluster.heartbeatMs", 10, 600000))
    c.heartbeat_ms = static_cast<int32_t>(*v);
  if (auto v = r.integer(cl, "connectionTimeoutMs",
                         "cluster.connectionTimeoutMs", 50, 3600000))
    c.connection_timeout_ms = static_cast<int32_t>(*v);
  if (auto v = r.integer(cl, "requestTimeout", "cluster.requestTimeout", 1,
                         3600))
    c.request_timeout_s = static_cast<int32_t>(*v);
  if (auto v = r.integer(cl, "virtualNodes", "cluster.virtualNodes", 1, 4096))
    c.virtual_nodes = static_cast<int32_t>(*v);
  if (auto v = r.integer(cl, "schedulesLeaseMs", "cluster.schedulesLeaseMs",
                         1000, 3600000))
    c.schedules_lease_ms = *v;
  if (auto* p = field(cl, "peers"); p != nullptr && !p->is_null()) {
    if (!p->is_array())
      r.fail("cluster.peers", "expected a list of host:port strings, found "
                                + config::type_name(*p));
    else
      for (size_t i = 0; i < p->size(); ++i) {
        auto path = "cluster.peers[" + std::to_string(i) + "]";
        if (!(*p)[i].is_string()) {
          r.fail(path, "expected a host:port string, found "
                         + config::type_name((*p)[i]));
          break;
        }
        auto t = config::interpolate((*p)[i].get<std::string>(), env);
        if (!t.missing.empty())
          r.fail(path, "environment variable " + t.missing.front()
                         + " is not set");
        c.peers.push_back(t.text);
      }
  }
  if (auto v = r.text(tls, "cert", "cluster.tls.cert")) c.tls.cert = *v;
  if (auto v = r.text(tls, "key", "cluster.tls.key")) c.tls.key = *v;
  if (auto v = r.text(tls, "ca", "cluster.tls.ca")) c.tls.ca = *v;
  if (auto v = r.text(top, "sessionStore", "sessionStore")) out.session_store = *v;
  if (auto v = r.text(top, "sessionStoreDsn", "sessionStoreDsn"))
    out.session_store_dsn = *v;
  if (r.error)
    return *r.error;
  if (out.session_store != "file" && out.session_store != "postgres")
    return config_error{"sessionStore", "expected \"file\" or \"postgres\""};
  if (out.session_store == "postgres" && out.session_store_dsn.empty())
    return config_error{"sessionStoreDsn", "sessionStore \"postgres\" needs a "
                                           "libpq connection string here"};
  if (c.tls.cert.empty() != c.tls.key.empty())
    return config_error{"cluster.tls", "cert and key must be set together"};
  if (c.listen.rfind(':') == std::string::npos)
    return config_error{"cluster.listen", "expected host:port"};
  if (!is_loopback_host(c.listen.substr(0, c.listen.rfind(':')))
      && c.tls.cert.empty())
    out.warnings.push_back("cluster.listen is not a loopback address and "
                           "cluster.tls is not set: node traffic is "
                           "unencrypted and unauthenticated");
  return out;
}

} // namespace

cluster_load_result parse_cluster_config(const std::string& json_text,
                                         const env_lookup& env) {
  return config::parse_section<cluster_load_result>(
    json_text, [&](const json& root) { return cluster_from_root(root, env); });
}

cluster_load_result load_cluster_config(const std::string& path,
                                        const env_lookup& env) {
  return config::load_section<cluster_load_result>(
    path, [&](const json& root) { return cluster_from_root(root, env); });
}

} // namespace nb
