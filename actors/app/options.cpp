#include "actors/app/options.hpp"

#include <iostream>
#include <stdexcept>

#include "config/spelling.hpp"

namespace nb {

namespace {

/// Every long option, for "did you mean".
const std::vector<std::string>& long_options() {
  static const std::vector<std::string> all{
    "--help",      "--version",  "--config",     "--workspace", "--message",
    "--session",   "--port",     "--host",       "--timeout",   "--role",
    "--no-stream", "--verbose",  "--logs",       "--foreground",
    "--markdown",  "--no-markdown"};
  return all;
}

std::string unknown_option(const std::string& a) {
  auto name = a.substr(0, a.find('='));
  std::string best;
  size_t best_d = 3; // closer than this counts as a typo
  for (auto& o : long_options()) {
    auto d = edit_distance(name, o);
    if (d < best_d) {
      best_d = d;
      best = o;
    }
  }
  auto text = "unknown option '" + a + "'";
  if (!best.empty())
    text += "; did you mean '" + best + "'?";
  return text + " (see nanobot --help)";
}

} // namespace

options parse_options(const std::vector<std::string>& args) {
  options out;
  auto value = [&](size_t& i, const std::string& flag) -> std::optional<std::string> {
    if (i + 1 >= args.size()) {
      out.error = "option " + flag + " needs a value";
      return std::nullopt;
    }
    return args[++i];
  };
  for (size_t i = 0; i < args.size() && out.error.empty(); ++i) {
    const auto& a = args[i];
    if (a == "-h" || a == "--help") {
      out.command = "help";
    } else if (a == "--version" || a == "-V") {
      out.command = "version";
    } else if (a == "-c" || a == "--config") {
      if (auto v = value(i, a)) out.config_path = *v;
    } else if (a == "-w" || a == "--workspace") {
      if (auto v = value(i, a)) out.workspace = *v;
    } else if (a == "-m" || a == "--message") {
      if (auto v = value(i, a)) out.message = *v;
    } else if (a == "-s" || a == "--session") {
      if (auto v = value(i, a)) out.session = *v;
    } else if (a == "-p" || a == "--port") {
      if (auto v = value(i, a)) {
        try {
          size_t used = 0;
          int p = std::stoi(*v, &used);
          if (used != v->size() || p < 0 || p > 65535)
            throw std::out_of_range{"port"};
          out.port = p;
        } catch (const std::exception&) {
          out.error = "option " + a + " needs a port number (0-65535), got '" + *v + "'";
        }
      }
    } else if (a == "-H" || a == "--host") {
      if (auto v = value(i, a)) out.host = *v;
    } else if (a == "-t" || a == "--timeout") {
      if (auto v = value(i, a)) {
        try {
          size_t used = 0;
          int t = std::stoi(*v, &used);
          if (used != v->size() || t < 1)
            throw std::out_of_range{"timeout"};
          out.timeout_s = t;
        } catch (const std::exception&) {
          out.error = "option " + a + " needs a number of seconds, got '" + *v
                      + "'";
        }
      }
    } else if (a == "--role") {
      if (auto v = value(i, a)) {
        if (*v != "gateway" && *v != "agent" && *v != "tools")
          out.error = "option --role needs gateway, agent or tools, got '"
                      + *v + "'";
        else
          out.role = *v;
      }
    } else if (a == "--no-stream") {
      out.stream = false;
    } else if (a == "-v" || a == "--verbose") {
      out.verbose = true;
    } else if (a == "--logs") {
      out.logs = true;
    } else if (a == "--foreground") {
      // gateway: it always runs in the foreground (a service manager or
      // the shell keeps it); accepted so the original's unit files work.
    } else if (a == "--markdown") {
      out.markdown = true;
    } else if (a == "--no-markdown") {
      out.markdown = false;
    } else if (!a.empty() && a[0] == '-') {
      out.error = unknown_option(a);
    } else if (out.command.empty()) {
      out.command = a;
    } else if ((out.command == "channels" || out.command == "agents")
               && out.subcommand.empty()) {
      out.subcommand = a;
    } else {
      out.error = "unexpected argument '" + a + "' (see nanobot --help)";
    }
  }
  return out;
}

std::string usage_text() {
  return "Usage: nanobot <command> [options]\n\n"
         "Commands:\n"
         "  onboard   write ~/.nanobot/config.json and a workspace (never overwrites)\n"
         "  status    show config, workspace, model and provider readiness\n"
         "  agent     chat in the terminal (-m MESSAGE for one message)\n"
         "  gateway   run the service: OpenAI-compatible API, /health, /stats, /metrics\n"
         "  serve     the OpenAI-compatible API alone (-p PORT, -H HOST, -t SECONDS)\n"
         "  cron      list, add or remove scheduled jobs (nanobot cron --help)\n"
         "  memory    search, stats or reindex the semantic memory (nanobot memory --help)\n"
         "  channels status   the chat channels and their state\n"
         "  agents list       the agents, their workspaces and models, and the bindings\n"
         "  node      run one part of a cluster (--role gateway|agent|tools; see cluster.*)\n\n"
         "Options:\n"
         "  -c, --config FILE     config file (default ~/.nanobot/config.json)\n"
         "  -w, --workspace DIR   workspace (onboard; others: instead of "
         "agents.defaults.workspace)\n"
         "  -m, --message TEXT    agent: send one message and exit\n"
         "  -s, --session KEY     agent: session (default cli:direct)\n"
         "      --no-stream       agent: wait for the whole answer\n"
         "      --logs            agent: show the gateway's logs\n"
         "      --markdown, --no-markdown  agent: answers as Markdown (default) "
         "or plain text\n"
         "      --foreground      gateway: run in the foreground (always so)\n"
         "  -p, --port PORT       gateway, channels: health/stats port (default gateway.port);\n"
         "                        serve: the API port (default api.port)\n"
         "      --role ROLE       node: gateway, agent or tools\n"
         "  -v, --verbose         debug logging\n"
         "  -V, --version         print the version\n";
}

int usage_error(const char* command, const char* usage,
                const std::string& what) {
  std::cerr << "nanobot " << command << ": " << what << "\n" << usage;
  return 2;
}

} // namespace nb
