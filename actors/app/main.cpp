// nanobot: parses the command line and runs one subcommand.
#include <iostream>
#include <string>
#include <vector>

#include "actors/app/commands.hpp"
#include "actors/app/options.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // `cron` has its own sub-actions and options.
  if (!args.empty() && args[0] == "cron")
    return nb::cmd_cron({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "memory")
    return nb::cmd_memory({args.begin() + 1, args.end()});
  auto opts = nb::parse_options(args);
  if (!opts.error.empty()) {
    std::cerr << "nanobot: " << opts.error << "\n";
    return 2;
  }
  if (opts.command.empty() || opts.command == "help") {
    std::cout << nb::usage_text();
    return opts.command.empty() ? 2 : 0;
  }
  if (opts.command == "version") {
    std::cout << "nanobot-cpp " NB_VERSION "\n";
    return 0;
  }
  if (opts.command == "onboard")
    return nb::cmd_onboard(opts);
  if (opts.command == "status")
    return nb::cmd_status(opts);
  if (opts.command == "agent")
    return nb::cmd_agent(opts);
  if (opts.command == "gateway")
    return nb::cmd_gateway(opts);
  if (opts.command == "serve")
    return nb::cmd_serve(opts);
  if (opts.command == "channels")
    return nb::cmd_channels(opts);
  if (opts.command == "agents")
    return nb::cmd_agents(opts);
  if (opts.command == "trigger")
    return nb::cmd_trigger(opts);
  if (opts.command == "sessions")
    return nb::cmd_sessions(opts);
  if (opts.command == "provider")
    return nb::cmd_provider(opts);
  if (opts.command == "plugins")
    return nb::cmd_plugins(opts);
  if (opts.command == "node")
    return nb::exec_node_executable(argc, argv);
  std::cerr << "nanobot: "
            << nb::unknown_word("command", opts.command, nb::command_names())
            << " (see nanobot --help)\n";
  return 2;
}
