// `nanobot node` runs the nanobot-node executable beside nanobot (the only
// one linking CAF's network layer), on the same arguments.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/cli/cli_home.hpp"

using namespace nb::test;

TEST_CASE("nanobot node runs nanobot-node and names it when it is missing") {
  cli_home h;
  // Beside the built nanobot: the node itself answers (an agent node
  // without cluster.peers is refused by cmd_node, in nanobot-node).
  auto r = h.nanobot({"node", "--role", "agent"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "cluster.peers"));
  CHECK_FALSE(has(r.err, "cannot run"));

  // A nanobot copied alone: the error names the file it looked for.
  auto lone = h.home.at("lone");
  std::filesystem::create_directories(lone);
  std::filesystem::copy_file(nanobot_binary(), lone + "/nanobot");
  child_process p{{lone + "/nanobot", "node", "--role", "agent", "-c",
                   h.config},
                  h.home.path};
  CHECK(p.wait(std::chrono::seconds(30)) == 2);
  CHECK(has(p.err(), "cannot run " + lone + "/nanobot-node"));
  CHECK(has(p.err(), "No such file or directory"));
}
