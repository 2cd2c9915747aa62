// nanobot-node: `nanobot node --role gateway|agent|tools`, in an executable
// of its own. Only a cluster's processes use CAF's network layer (libcaf_io,
// libcaf_openssl); kept out of `nanobot`, a gateway, a chat or any other
// command no longer loads and relocates them at every start (6.1 M and
// 1.5 M instructions, 1.3 and 0.25 MB resident, measured on an empty
// program). `nanobot node` runs this file's program (node_exec.cpp).
#include <iostream>
#include <string>
#include <vector>

#include "actors/app/commands.hpp"
#include "actors/app/options.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto opts = nb::parse_options(args);
  if (!opts.error.empty()) {
    std::cerr << "nanobot node: " << opts.error << "\n";
    return 2;
  }
  if (opts.command != "node") {
    std::cerr << "nanobot-node runs `nanobot node`: nanobot node --role "
                 "gateway|agent|tools -c CONFIG\n";
    return 2;
  }
  return nb::cmd_node(opts);
}
