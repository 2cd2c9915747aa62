// A cluster over TLS (cluster.tls, caf_openssl): certificates made by the
// openssl CLI in the test's directory; an agent with a certificate from the
// cluster's CA joins and serves chats, nodes without one are refused.
#include <doctest/doctest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <unistd.h>

#include "tests/cluster/cluster_fixture.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

/// The openssl CLI from PATH (the child runner does not search it).
std::string openssl_path() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t at = 0; at <= dirs.size();) {
    auto end = dirs.find(':', at);
    if (end == std::string::npos)
      end = dirs.size();
    auto candidate = dirs.substr(at, end - at) + "/openssl";
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    at = end + 1;
  }
  return "openssl";
}

/// Runs the openssl CLI; fails the test with its output on error.
void openssl(const std::vector<std::string>& args, const std::string& dir) {
  std::vector<std::string> argv{openssl_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run(argv, dir);
  REQUIRE_MESSAGE(r.code == 0, "openssl failed: " << r.err);
}

/// A CA, and a key + certificate for the nodes signed by it.
struct pki {
  std::string dir;
  std::string ca, cert, key;

  pki(const std::string& in, const std::string& name) : dir(in + "/" + name) {
    std::filesystem::create_directories(dir);
    ca = dir + "/ca.pem";
    cert = dir + "/node.pem";
    key = dir + "/node.key";
    openssl({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
             dir + "/ca.key", "-out", ca, "-days", "2", "-subj",
             "/CN=nanobot test CA " + name},
            dir);
    openssl({"req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out",
             dir + "/node.csr", "-subj", "/CN=127.0.0.1"},
            dir);
    openssl({"x509", "-req", "-in", dir + "/node.csr", "-CA", ca, "-CAkey",
             dir + "/ca.key", "-CAcreateserial", "-out", cert, "-days", "2"},
            dir);
  }

  json tls() const { return {{"cert", cert}, {"key", key}, {"ca", ca}}; }
};

} // namespace

TEST_CASE("an agent node joins over TLS and serves chats while nodes without the cluster CA are refused") {
  fake_llm llm;
  temp_home certs;
  pki cluster_pki{certs.dir.string(), "cluster"};
  pki rogue_pki{certs.dir.string(), "rogue"};
  loopback_cluster c{llm, 1, false, true, json{{"tls", cluster_pki.tls()}}};
  c.start_gateway();
  CHECK(c.gateway().err().find("(TLS)") != std::string::npos);
  c.start_agent(1);
  for (int i = 0; i < 6; ++i) {
    auto s = "tls-" + std::to_string(i);
    CHECK(starts_with(c.chat(s, "over tls " + s), "echo: over tls " + s));
  }
  CHECK(count_of(c.gateway().err(), "placed on agent-1") > 0);
  CHECK(count_of(c.gateway().err(), "placed on gateway-1") == 0);

  // A certificate from another CA, and no TLS at all: neither gets in.
  auto rogue_cfg = c.extra_agent_config("agent-rogue",
                                        json{{"tls", rogue_pki.tls()}});
  auto plain_cfg = c.extra_agent_config("agent-plain", json::object());
  child_process rogue{{nanobot_binary(), "node", "--role", "agent", "-c",
                       rogue_cfg},
                      std::filesystem::path{rogue_cfg}.parent_path().string()};
  child_process plain{{nanobot_binary(), "node", "--role", "agent", "-c",
                       plain_cfg},
                      std::filesystem::path{plain_cfg}.parent_path().string()};
  // Each is turned away, then keeps retrying every second in vain.
  CHECK(rogue.wait_for_log("retrying every second", std::chrono::seconds(30)));
  CHECK(plain.wait_for_log("retrying every second", std::chrono::seconds(30)));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  auto gw_log = c.gateway().err();
  CHECK(gw_log.find("node agent-rogue joined") == std::string::npos);
  CHECK(gw_log.find("node agent-plain joined") == std::string::npos);
  CHECK(rogue.err().find("joined gateway") == std::string::npos);
  CHECK(plain.err().find("joined gateway") == std::string::npos);
  rogue.signal(SIGTERM);
  plain.signal(SIGTERM);
  rogue.wait(std::chrono::seconds(10));
  plain.wait(std::chrono::seconds(10));

  // The cluster still serves, on the TLS agent only.
  CHECK(starts_with(c.chat("tls-after", "still fine"), "echo: still fine"));
}
