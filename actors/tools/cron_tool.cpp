// cron: lets the agent add, list and remove scheduled jobs. A job runs
// later as a turn in the session that created it. The tool is never the
// scheduler: it queues its changes in cron/action.jsonl for the gateway
// that runs the schedule (ours or the original's), as the original's tool
// does outside that gateway, so it works the same in the gateway and in
// `nanobot agent`.
#include <chrono>

#include "actors/common/clock.hpp"
#include "actors/cron/cron_ops.hpp"
#include "actors/tools/builtin_tools.hpp"

namespace nb {

namespace {

using nlohmann::json;

std::string text_arg(const json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : "";
}

tool_output cron_tool(const json& args, const tool_context& ctx) {
  cron::job_store store{ctx.workspace + "/cron", cron::store_role::client};
  auto action = text_arg(args, "action");
  cron::op_result r;
  if (action == "list") {
    r = cron::list_jobs(store, unix_ms());
  } else if (action == "remove") {
    r = cron::remove_job(store, text_arg(args, "job_id"));
  } else if (action == "add") {
    cron::add_request rq;
    rq.name = text_arg(args, "name");
    rq.message = text_arg(args, "message");
    rq.cron_expr = text_arg(args, "cron_expr");
    rq.tz = text_arg(args, "tz");
    rq.at = text_arg(args, "at");
    if (auto e = args.find("every_seconds"); e != args.end() && !e->is_null()) {
      if (!e->is_number_integer())
        return {"Error: every_seconds must be a whole number of seconds", true};
      rq.every_seconds = e->get<int64_t>();
    }
    // The job belongs to this chat: "[{agent}:]{channel}:{chat_id}"
    // sessions only (the agent's prefix is not the channel).
    auto base = ctx.session_key;
    if (ctx.agent != "main" && base.rfind(ctx.agent + ":", 0) == 0)
      base.erase(0, ctx.agent.size() + 1);
    auto colon = base.find(':');
    if (colon != std::string::npos && colon > 0) {
      rq.session_key = ctx.session_key;
      rq.channel = base.substr(0, colon);
      rq.chat_id = base.substr(colon + 1);
    }
    r = cron::add_job(store, rq, unix_ms());
  } else {
    return {"Error: action must be one of add, list, remove", true};
  }
  return {r.text, !r.ok};
}

} // namespace

void add_cron(tool_registry& reg) {
  auto text = [](const char* what) {
    return json{{"type", "string"}, {"description", what}};
  };
  json schema = {
    {"type", "object"},
    {"properties",
     {{"action",
       {{"type", "string"},
        {"enum", {"add", "list", "remove"}},
        {"description", "What to do."}}},
      {"name", text("add: a short name for the job (default: the start of "
                    "the message).")},
      {"message", text("add: what to do or say when the job runs.")},
      {"every_seconds",
       {{"type", "integer"},
        {"description", "add: run every this many seconds."}}},
      {"cron_expr", text("add: a 5-field cron expression, e.g. '0 9 * * 1-5' "
                         "for 9:00 on weekdays.")},
      {"tz", text("add: IANA time zone for cron_expr, e.g. 'Europe/Berlin' "
                  "(default: the system's).")},
      {"at", text("add: one run at this ISO date-time, e.g. "
                  "'2026-12-01T09:00:00' (local time unless it has an "
                  "offset).")},
      {"job_id", text("remove: the id shown by list.")}}},
    {"required", {"action"}},
  };
  reg.add({"cron",
           "Schedule reminders and recurring tasks. add needs message and "
           "exactly one of every_seconds, cron_expr or at; the job later "
           "runs as a message in this conversation. list shows the jobs, "
           "remove deletes one by job_id.",
           {}, false, false},
          schema,
          cron_tool);
}

} // namespace nb
