// cluster.* and sessionStore: read beside the settings, same ${VAR} and
// NANOBOT_* rules, errors naming the key, silent in the main loader.
#include <doctest/doctest.h>

#include "config/cluster_config.hpp"
#include "tests/config/helpers.hpp"

using namespace nb;
using namespace nb::test;

namespace {

cluster_config ok_cluster(const cluster_load_result& r) {
  if (auto* e = std::get_if<config_error>(&r))
    FAIL("unexpected error: " << e->message());
  return std::get<cluster_config>(r);
}

config_error err_cluster(const cluster_load_result& r) {
  REQUIRE(std::holds_alternative<config_error>(r));
  return std::get<config_error>(r);
}

} // namespace

TEST_CASE("cluster keys load with defaults and both spellings") {
  auto d = ok_cluster(parse_cluster_config("{}", env_of()));
  CHECK(d.cluster.listen == "127.0.0.1:0");
  CHECK(d.cluster.heartbeat_ms == 500);
  CHECK(d.session_store == "file");
  CHECK(d.cluster.schedules_lease_ms == 30000);
  auto c = ok_cluster(parse_cluster_config(R"({
    "cluster": {"nodeId": "agent-1", "listen": "127.0.0.1:7100",
                "peers": ["10.0.0.1:7100", "${GW}"],
                "heartbeat_ms": 200, "connectionTimeoutMs": 1000,
                "schedules_lease_ms": 5000,
                "tls": {"cert": "c.pem", "key": "k.pem", "ca": "ca.pem"}},
    "sessionStore": "postgres", "session_store_dsn": "host=${PGHOST}"})",
                                           env_of({{"GW", "10.0.0.2:7100"},
                                                   {"PGHOST", "db"}})));
  CHECK(c.cluster.node_id == "agent-1");
  CHECK(c.cluster.peers == std::vector<std::string>{"10.0.0.1:7100", "10.0.0.2:7100"});
  CHECK(c.cluster.heartbeat_ms == 200);
  CHECK(c.cluster.connection_timeout_ms == 1000);
  CHECK(c.cluster.schedules_lease_ms == 5000);
  CHECK(c.cluster.tls.ca == "ca.pem");
  CHECK(c.session_store == "postgres");
  CHECK(c.session_store_dsn == "host=db");
  CHECK(c.warnings.empty());
}

TEST_CASE("NANOBOT_CLUSTER variables override the file") {
  auto c = ok_cluster(parse_cluster_config(R"({"cluster": {"listen": "127.0.0.1:1"}})",
                                           env_of({{"NANOBOT_CLUSTER__LISTEN", "127.0.0.1:2"},
                                                   {"NANOBOT_CLUSTER__HEARTBEAT_MS", "300"}})));
  CHECK(c.cluster.listen == "127.0.0.1:2");
  CHECK(c.cluster.heartbeat_ms == 300);
}

TEST_CASE("bad cluster values are errors naming the key") {
  struct row {
    const char* json;
    const char* key;
    const char* reason_part;
  };
  row rows[] = {
    {R"({"cluster": []})", "cluster", "expected an object"},
    {R"({"cluster": {"listen": 7100}})", "cluster.listen", "expected a string"},
    {R"({"cluster": {"listen": "nohost"}})", "cluster.listen", "host:port"},
    {R"({"cluster": {"peers": "a:1"}})", "cluster.peers", "list"},
    {R"({"cluster": {"peers": ["a:1", 3]}})", "cluster.peers[1]", "host:port"},
    {R"({"cluster": {"heartbeatMs": 0}})", "cluster.heartbeatMs", "between"},
    {R"({"cluster": {"schedulesLeaseMs": 10}})", "cluster.schedulesLeaseMs",
     "between"},
    {R"({"cluster": {"tls": {"cert": "c.pem"}}})", "cluster.tls", "together"},
    {R"({"cluster": {"nodeId": "${NOPE}"}})", "cluster.nodeId", "NOPE"},
    {R"({"sessionStore": "redis"})", "sessionStore", "file"},
    {R"({"sessionStore": "postgres"})", "sessionStoreDsn", "connection string"},
  };
  for (auto& r : rows) {
    CAPTURE(r.json);
    auto e = err_cluster(parse_cluster_config(r.json, env_of()));
    CHECK(e.key_path == r.key);
    CHECK(e.reason.find(r.reason_part) != std::string::npos);
  }
}

TEST_CASE("an exposed cluster port without TLS is a warning") {
  auto c = ok_cluster(parse_cluster_config(
    R"({"cluster": {"listen": "0.0.0.0:7100"}})", env_of()));
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0].find("cluster.tls") != std::string::npos);
}

TEST_CASE("the main loader accepts the cluster keys silently") {
  auto l = ok(parse_settings(R"({"cluster": {"listen": "127.0.0.1:7100"},
                                 "sessionStore": "file"})", "c.json", env_of()));
  CHECK(l.warnings.empty());
  for (auto& n : l.notices)
    CHECK(n.find("cluster") == std::string::npos);
}
