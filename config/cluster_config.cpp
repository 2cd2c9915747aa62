#include "config/cluster_config.hpp"

#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "config/pipeline.hpp"

namespace nb {

namespace {

using nlohmann::json;

/// The value of `camel` (or its snake_case spelling) in `obj`.
const json* field(const json& obj, std::string_view camel) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (config::key_matches(it.key(), camel))
      return &*it;
  return nullptr;
}

/// "cluster.tls.cert" -> "NANOBOT_CLUSTER__TLS__CERT".
std::string env_name(std::string_view path) {
  std::string out = "NANOBOT_";
  for (auto part : {std::string{path}}) {
    for (char c : config::snake_case(part))
      out += c == '.' ? std::string{"__"}
                      : std::string(1, static_cast<char>(std::toupper(
                                         static_cast<unsigned char>(c))));
  }
  return out;
}

struct reader {
  const env_lookup& env;
  std::optional<config_error> error;

  std::optional<std::string> text(const json& obj, std::string_view key,
                                  const std::string& path) {
    if (auto v = env(env_name(path)))
      return *v;
    auto* j = field(obj, key);
    if (j == nullptr || j->is_null())
      return std::nullopt;
    if (!j->is_string()) {
      fail(path, "expected a string, found " + config::type_name(*j));
      return std::nullopt;
    }
    auto r = config::interpolate(j->get<std::string>(), env);
    if (!r.missing.empty()) {
      fail(path, "environment variable " + r.missing.front() + " is not set");
      return std::nullopt;
    }
    return r.text;
  }

  std::optional<int64_t> integer(const json& obj, std::string_view key,
                                 const std::string& path, int64_t lo,
                                 int64_t hi) {
    std::optional<int64_t> v;
    if (auto e = env(env_name(path))) {
      try {
        size_t used = 0;
        v = std::stoll(*e, &used);
        if (used != e->size())
          v.reset();
      } catch (const std::exception&) {
      }
      if (!v) {
        fail(path, "expected an integer in " + env_name(path));
        return std::nullopt;
      }
    } else if (auto* j = field(obj, key); j != nullptr && !j->is_null()) {
      if (!j->is_number_integer()) {
        fail(path, "expected an integer, found " + config::type_name(*j));
        return std::nullopt;
      }
      v = j->get<int64_t>();
    }
    if (v && (*v < lo || *v > hi)) {
      fail(path, "must be between " + std::to_string(lo) + " and "
                   + std::to_string(hi));
      return std::nullopt;
    }
    return v;
  }

  void fail(const std::string& path, std::string reason) {
    if (!error)
      error = config_error{path, std::move(reason)};
  }
};

cluster_load_result from_root(const json& root, const env_lookup& env) {
  cluster_config out;
  reader r{env, std::nullopt};
  auto obj_or_empty = [&](const json& parent, std::string_view key,
                          const std::string& path) -> json {
    auto* j = field(parent, key);
    if (j == nullptr || j->is_null())
      return json::object();
    if (!j->is_object()) {
      r.fail(path, "expected an object, found " + config::type_name(*j));
      return json::object();
    }
    return *j;
  };
  auto top = root.is_object() ? root : json::object();
  auto cl = obj_or_empty(top, "cluster", "cluster");
  auto tls = obj_or_empty(cl, "tls", "cluster.tls");
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
  auto root = json::parse(json_text, nullptr, false, true);
  if (root.is_discarded())
    return config_error{"", "the config file is not valid JSON"};
  return from_root(root, env);
}

cluster_load_result load_cluster_config(const std::string& path,
                                        const env_lookup& env) {
  try {
    std::ifstream in{path, std::ios::binary};
    if (!in)
      return from_root(json::object(), env); // no file: defaults
    std::ostringstream buf;
    buf << in.rdbuf();
    return parse_cluster_config(buf.str(), env);
  } catch (const std::exception&) {
    return config_error{"", "unexpected failure while loading " + path};
  }
}

} // namespace nb
