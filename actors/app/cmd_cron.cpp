// `nanobot cron list|add|remove`: the scheduled jobs from the shell. Works
// while a gateway runs: the jobs file is changed under its lock and the
// gateway's scheduler picks the change up within seconds.
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "actors/app/commands.hpp"
#include "actors/app/load_config.hpp"
#include "actors/common/clock.hpp"
#include "actors/cron/cron_ops.hpp"

namespace nb {

namespace {

constexpr const char* cron_usage =
  "Usage:\n"
  "  nanobot cron list\n"
  "  nanobot cron add -m MESSAGE (--every SECONDS | --cron EXPR [--tz ZONE]"
  " | --at ISO)\n"
  "                   [--name NAME] [-s SESSION]\n"
  "  nanobot cron remove JOB_ID\n"
  "Options: -c/--config FILE. A job runs as a message in SESSION (default "
  "cli:direct;\n"
  "e.g. telegram:12345 to be answered in that chat).\n";

} // namespace

int cmd_cron(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::cout << cron_usage;
    return args.empty() ? 2 : 0;
  }
  auto action = args[0];
  options opts;
  cron::add_request rq;
  std::string session = "cli:direct";
  std::vector<std::string> positional;
  for (size_t i = 1; i < args.size(); ++i) {
    const auto& a = args[i];
    auto value = [&]() -> const std::string* {
      return i + 1 < args.size() ? &args[++i] : nullptr;
    };
    const std::string* v = nullptr;
    if (a == "-c" || a == "--config") {
      if (!(v = value()))
        return usage_error("cron", cron_usage, a + " needs a value");
      opts.config_path = *v;
    } else if (a == "-m" || a == "--message") {
      if (!(v = value()))
        return usage_error("cron", cron_usage, a + " needs a value");
      rq.message = *v;
    } else if (a == "--name") {
      if (!(v = value()))
        return usage_error("cron", cron_usage, a + " needs a value");
      rq.name = *v;
    } else if (a == "--every") {
      if (!(v = value()))
        return usage_error("cron", cron_usage, a + " needs a value");
      try {
        size_t used = 0;
        rq.every_seconds = std::stoll(*v, &used);
        if (used != v->size())
          throw std::invalid_argument{"every"};
      } catch (const std::exception&) {
        return usage_error("cron", cron_usage,
                           "--every needs a whole number of seconds, got '" + *v
                             + "'");
      }
    } else if (a == "--cron") {
      if (!(v = value()))
        return usage_error("cron", cron_usage, a + " needs a value");
      rq.cron_expr = *v;
    } else if (a == "--tz") {
      if (!(v = value()))
        return usage_error("cron", cron_usage, a + " needs a value");
      rq.tz = *v;
    } else if (a == "--at") {
      if (!(v = value()))
        return usage_error("cron", cron_usage, a + " needs a value");
      rq.at = *v;
    } else if (a == "-s" || a == "--session") {
      if (!(v = value()))
        return usage_error("cron", cron_usage, a + " needs a value");
      session = *v;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error(
        "cron", cron_usage,
        unknown_word("option", a,
                     {"--config", "--message", "--name", "--every", "--cron",
                      "--tz", "--at", "--session"}));
    } else {
      positional.push_back(a);
    }
  }
  if (action != "list" && action != "add" && action != "remove")
    return usage_error(
      "cron", cron_usage,
      unknown_word("action", action, {"list", "add", "remove"}));
  if (action == "remove" ? positional.size() != 1 : !positional.empty())
    return usage_error("cron", cron_usage,
                       action == "remove"
                         ? "remove needs one JOB_ID"
                         : "unexpected argument '" + positional[0] + "'");
  auto cfg = load_config_or_report(opts);
  if (!cfg)
    return 2;
  // Not the scheduler: changes are queued for whichever gateway runs it.
  cron::job_store store{cfg->workspace_path() + "/cron",
                        cron::store_role::client};
  cron::op_result r;
  if (action == "list") {
    r = cron::list_jobs(store, unix_ms());
  } else if (action == "remove") {
    r = cron::remove_job(store, positional[0]);
  } else {
    auto colon = session.find(':');
    if (colon == std::string::npos || colon == 0)
      return usage_error("cron", cron_usage,
                         "--session must look like channel:chat_id, got '"
                           + session + "'");
    rq.session_key = session;
    rq.channel = session.substr(0, colon);
    rq.chat_id = session.substr(colon + 1);
    r = cron::add_job(store, rq, unix_ms());
  }
  for (auto& p : r.problems)
    std::cerr << "warning: " << p << "\n";
  (r.ok ? std::cout : std::cerr) << r.text << "\n";
  return r.ok ? 0 : 1;
}

} // namespace nb
