#include "actors/app/options.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "config/spelling.hpp"

namespace nb {

namespace {

/// Every long option, for "did you mean".
const std::vector<std::string>& long_options() {
  static const std::vector<std::string> all{
    "--help",      "--version",     "--config", "--workspace",  "--message",
    "--session",   "--port",        "--host",   "--timeout",    "--role",
    "--no-stream", "--verbose",     "--logs",   "--foreground", "--background",
    "--markdown",  "--no-markdown", "--tail",   "--follow",     "--no-follow",
    "--system",    "--dry-run",     "--name",   "--no-start",   "--set-main",
    "--agent"};
  return all;
}

/// Commands whose next word is a sub-action.
bool has_subcommand(const std::string& command) {
  return command == "channels" || command == "agents" || command == "gateway"
         || command == "sessions" || command == "plugins"
         || command == "provider";
}

/// Commands that take further words after the command (and sub-action).
bool takes_positionals(const std::string& command) {
  return command == "trigger" || command == "sessions" || command == "plugins"
         || command == "provider";
}

/// A whole number in [lo, hi], or nullopt.
std::optional<int> whole_number(const std::string& text, int lo, int hi) {
  try {
    size_t used = 0;
    int n = std::stoi(text, &used);
    if (used != text.size() || n < lo || n > hi)
      return std::nullopt;
    return n;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

} // namespace

const std::vector<std::string>& command_names() {
  static const std::vector<std::string> all{
    "onboard",  "status",   "agent",  "gateway", "serve",   "cron",
    "memory",   "channels", "agents", "node",    "trigger", "sessions",
    "provider", "plugins",  "help",   "version"};
  return all;
}

std::string closest_word(std::string_view word,
                         const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = 3; // closer than this counts as a typo
  for (auto& c : candidates) {
    auto d = edit_distance(word, c);
    // A one-letter word is "close" to every short name: not a typo then.
    if (d < best_d && d < std::max<size_t>(word.size(), 2)) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string unknown_word(const std::string& what, const std::string& word,
                         const std::vector<std::string>& candidates) {
  auto text = "unknown " + what + " '" + word + "'";
  auto best = closest_word(word, candidates);
  if (!best.empty())
    text += "; did you mean '" + best + "'?";
  return text;
}

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
    } else if (a == "-a" || a == "--agent") {
      if (auto v = value(i, a)) out.agent = *v;
    } else if (a == "-m" || a == "--message") {
      if (auto v = value(i, a)) out.message = *v;
    } else if (a == "-s" || a == "--session") {
      if (auto v = value(i, a)) out.session = *v;
    } else if (a == "-p" || a == "--port") {
      if (auto v = value(i, a)) {
        out.port = whole_number(*v, 0, 65535);
        if (!out.port)
          out.error =
            "option " + a + " needs a port number (0-65535), got '" + *v + "'";
      }
    } else if (a == "-H" || a == "--host") {
      if (auto v = value(i, a)) out.host = *v;
    } else if (a == "-t" || a == "--timeout") {
      if (auto v = value(i, a)) {
        out.timeout_s = whole_number(*v, 1, 86400);
        if (!out.timeout_s)
          out.error = "option " + a + " needs a number of seconds, got '" + *v
                      + "'";
      }
    } else if (a == "--tail" || a == "-n") {
      if (auto v = value(i, a)) {
        out.tail = whole_number(*v, 0, 1000000);
        if (!out.tail)
          out.error =
            "option " + a + " needs a number of lines, got '" + *v + "'";
      }
    } else if (a == "--role") {
      if (auto v = value(i, a)) {
        if (*v != "gateway" && *v != "agent" && *v != "tools")
          out.error = "option --role needs gateway, agent or tools, got '"
                      + *v + "'";
        else
          out.role = *v;
      }
    } else if (a == "--name") {
      if (auto v = value(i, a))
        out.service_name = *v;
    } else if (a == "--no-stream") {
      out.stream = false;
    } else if (a == "-v" || a == "--verbose") {
      out.verbose = true;
    } else if (a == "--logs") {
      out.logs = true;
    } else if (a == "--foreground") {
      out.foreground = true;
    } else if (a == "--background") {
      out.background = true;
    } else if (a == "-f" || a == "--follow") {
      out.follow = true;
    } else if (a == "--no-follow") {
      out.follow = false;
    } else if (a == "--system") {
      out.system_unit = true;
    } else if (a == "--dry-run") {
      out.dry_run = true;
    } else if (a == "--no-start") {
      out.start_service = false;
    } else if (a == "--set-main") {
      out.set_main = true;
    } else if (a == "--markdown") {
      out.markdown = true;
    } else if (a == "--no-markdown") {
      out.markdown = false;
    } else if (!a.empty() && a[0] == '-') {
      out.error =
        unknown_word("option", a.substr(0, a.find('=')), long_options())
        + " (see nanobot --help)";
    } else if (out.command.empty()) {
      out.command = a;
    } else if (has_subcommand(out.command) && out.subcommand.empty()) {
      out.subcommand = a;
    } else if (takes_positionals(out.command)) {
      out.positionals.push_back(a);
    } else {
      out.error = "unexpected argument '" + a + "' (see nanobot --help)";
    }
  }
  return out;
}

std::string usage_text() {
  return "Usage: nanobot <command> [options]\n\n"
         "Commands:\n"
         "  onboard   write ~/.nanobot/config.json and a workspace (never "
         "overwrites)\n"
         "  status    show config, workspace, model and provider readiness\n"
         "  agent     chat in the terminal (-m MESSAGE for one message)\n"
         "  gateway   run the service: OpenAI-compatible API, /health, /stats, "
         "/metrics\n"
         "            (--background: detached, pid file and log under the "
         "config dir)\n"
         "  gateway status|logs|stop|restart   the background gateway\n"
         "  gateway install-service|uninstall-service   a systemd unit "
         "(--system)\n"
         "  serve     the OpenAI-compatible API alone (-p PORT, -H HOST, -t "
         "SECONDS)\n"
         "  cron      list, add or remove scheduled jobs (nanobot cron "
         "--help)\n"
         "  memory    search, stats or reindex the semantic memory (nanobot "
         "memory --help)\n"
         "  channels status   the chat channels and their state\n"
         "  agents list       the agents, their workspaces and models, and the "
         "bindings\n"
         "  node      run one part of a cluster (--role gateway|agent|tools; "
         "see cluster.*)\n"
         "  trigger JOB        run a cron job (id or name) now\n"
         "  sessions list|show KEY|restore-workspace   the stored sessions\n"
         "  provider login|logout NAME   an API-key provider's key (read from "
         "stdin)\n"
         "  plugins list|enable NAME|disable NAME   the workspace's Agent "
         "Plugins (skills, MCP servers)\n\n"
         "Options:\n"
         "  -c, --config FILE     config file (default "
         "~/.nanobot/config.json)\n"
         "  -w, --workspace DIR   workspace (onboard; others: instead of "
         "agents.defaults.workspace)\n"
         "  -a, --agent ID        plugins: the Agent Plugins of this "
         "agents.list agent's\n"
         "                        workspace (default: main's)\n"
         "  -m, --message TEXT    agent: send one message and exit\n"
         "  -s, --session KEY     agent: session (default cli:direct)\n"
         "      --no-stream       agent: wait for the whole answer\n"
         "      --logs            agent: show the gateway's log lines "
         "(quiet without)\n"
         "      --markdown, --no-markdown  agent: answers rendered from "
         "Markdown on a terminal (default) or the plain text as written\n"
         "      --foreground      gateway: run in this terminal (the default)\n"
         "      --background      gateway: start detached, return once /health "
         "answers\n"
         "  -t, --timeout SECONDS gateway --background/stop/restart, trigger: "
         "how long\n"
         "                        to wait; serve: the API's request timeout\n"
         "  -n, --tail LINES      gateway logs: lines to show (default 200)\n"
         "  -f, --follow, --no-follow  gateway logs: keep printing new lines\n"
         "                        (default: follow when the output is a "
         "terminal)\n"
         "      --system          gateway install-service: a system unit, not "
         "a user unit\n"
         "      --name NAME       gateway install-service: the unit's name "
         "(nanobot-gateway)\n"
         "      --no-start        gateway install-service: write and enable, "
         "do not start\n"
         "      --dry-run         gateway install-service: print the unit, "
         "write nothing\n"
         "  -p, --port PORT       gateway, channels: health/stats port "
         "(default gateway.port);\n"
         "                        serve: the API port (default api.port)\n"
         "      --role ROLE       node: gateway, agent or tools\n"
         "      --set-main        provider login: also make it "
         "agents.defaults.provider\n"
         "  -v, --verbose         debug logging\n"
         "  -V, --version         print the version\n";
}

int usage_error(const char* command, const char* usage,
                const std::string& what) {
  std::cerr << "nanobot " << command << ": " << what << "\n" << usage;
  return 2;
}

} // namespace nb
