#include "actors/cron/cron_admin.hpp"

#include <algorithm>

#include "actors/cron/cron_ops.hpp"
#include "actors/cron/time_zone.hpp"

namespace nb::cron {

namespace {

using json = nlohmann::json;

/// How many recent runs the page lists per job.
constexpr size_t shown_runs = 5;

json refusal(const std::string& why) {
  return {{"ok", false}, {"error", why}};
}

std::string text_field(const json& form, const char* key) {
  auto it = form.find(key);
  return it != form.end() && it->is_string() ? it->get<std::string>()
                                             : std::string{};
}

std::string iso_or_empty(int64_t ms, const std::string& tz) {
  return ms > 0 ? format_iso(ms, tz) : std::string{};
}

/// The schedule fields of `form` as an add_request's; "" or the problem.
std::string read_schedule(const json& form, add_request& rq) {
  auto kind = text_field(form, "kind");
  if (kind == "every") {
    auto v = form.value("every_seconds", json());
    if (v.is_string()) // a form field
      v = json::parse(v.get<std::string>(), nullptr, false);
    if (!v.is_number_integer() && !v.is_number_unsigned())
      return "every_seconds: a whole number of seconds is needed";
    rq.every_seconds = v.get<int64_t>();
  } else if (kind == "cron") {
    rq.cron_expr = text_field(form, "cron_expr");
    rq.tz = text_field(form, "tz");
    if (rq.cron_expr.empty())
      return "cron_expr: a cron expression is needed";
  } else if (kind == "at") {
    rq.at = text_field(form, "at");
    if (rq.at.empty())
      return "at: a date and time is needed";
  } else {
    return "kind: \"every\", \"cron\" or \"at\"";
  }
  return {};
}

/// The session a job of `agent` for this chat runs in.
std::string session_of(const std::string& agent, const std::string& channel,
                       const std::string& chat_id) {
  auto key = channel + ":" + chat_id;
  return agent.empty() || agent == "main" ? key : agent + ":" + key;
}

json add(job_store& store, const json& form, int64_t now_ms,
         const std::string& agent) {
  add_request rq;
  rq.name = text_field(form, "name");
  rq.message = text_field(form, "message");
  rq.channel = text_field(form, "channel");
  rq.chat_id = text_field(form, "chat_id");
  if (rq.message.empty())
    return refusal("message: what the job asks the agent is needed");
  if (rq.channel.empty() || rq.chat_id.empty())
    return refusal("channel and chat_id: the chat the job runs in is needed");
  if (auto bad = read_schedule(form, rq); !bad.empty())
    return refusal(bad);
  rq.session_key = session_of(agent, rq.channel, rq.chat_id);
  auto r = add_job(store, rq, now_ms);
  if (!r.ok)
    return refusal(r.text.rfind("Error: ", 0) == 0 ? r.text.substr(7)
                                                    : r.text);
  for (auto& j : store.read().jobs)
    if (j.id == r.job_id)
      return {{"ok", true}, {"job", job_view(j)}};
  return refusal("the job was saved but is not in the store any more");
}

/// Applies `op` to `j`; "" or why not.
std::string change(job& j, const std::string& op, const json& form,
                   int64_t now_ms, const std::string& agent) {
  auto anchor = j.created_at_ms > 0 ? j.created_at_ms : now_ms;
  if (op == "pause") {
    j.enabled = false;
    j.next_run_at_ms = 0;
    return {};
  }
  bool reschedule = op == "resume";
  if (op == "update") {
    if (form.contains("name")) {
      auto name = text_field(form, "name");
      if (!name.empty())
        j.name = name;
    }
    if (form.contains("message")) {
      auto message = text_field(form, "message");
      if (message.empty())
        return "message: what the job asks the agent is needed";
      j.message = message;
    }
    if (form.contains("channel") || form.contains("chat_id")) {
      auto channel = text_field(form, "channel");
      auto chat = text_field(form, "chat_id");
      if (channel.empty() || chat.empty())
        return "channel and chat_id: the chat the job runs in is needed";
      j.origin_channel = channel;
      j.origin_chat_id = chat;
      j.session_key = session_of(agent, channel, chat);
    }
    if (form.contains("kind")) {
      add_request rq;
      if (auto bad = read_schedule(form, rq); !bad.empty())
        return bad;
      auto s = schedule_of(rq, now_ms);
      if (auto* why = std::get_if<std::string>(&s))
        return *why;
      j.schedule = std::get<schedule>(s);
      j.delete_after_run = j.schedule.kind == "at";
      reschedule = true;
    }
  } else if (op != "resume") {
    return "op: \"add\", \"update\", \"pause\", \"resume\", \"remove\" or "
           "\"run\"";
  }
  if (reschedule && (j.enabled || op == "resume")) {
    auto next = next_run(j.schedule, now_ms, anchor);
    if (!next)
      return "the schedule never fires again (" + describe_timing(j) + ")";
    j.enabled = true;
    j.next_run_at_ms = *next;
  }
  return {};
}

} // namespace

json job_view(const job& j) {
  auto tz = j.schedule.tz.empty() ? system_zone_name() : j.schedule.tz;
  json runs = json::array();
  auto from = j.run_history.size() > shown_runs
                ? j.run_history.end() - shown_runs
                : j.run_history.begin();
  for (auto it = j.run_history.end(); it != from;) {
    --it; // newest first
    runs.push_back({{"at_ms", it->run_at_ms},
                    {"at", iso_or_empty(it->run_at_ms, tz)},
                    {"status", it->status},
                    {"error", it->error}});
  }
  return {{"id", j.id},
          {"name", j.name},
          {"enabled", j.enabled},
          {"system", j.payload_kind == "system_event"},
          {"kind", j.schedule.kind},
          {"timing", describe_timing(j)},
          {"every_seconds", j.schedule.every_ms / 1000},
          {"cron_expr", j.schedule.expr},
          {"at", iso_or_empty(j.schedule.at_ms, tz)},
          {"tz", tz},
          {"next_run_ms", j.enabled ? j.next_run_at_ms : 0},
          {"next_run", j.enabled ? iso_or_empty(j.next_run_at_ms, tz) : ""},
          {"last_run_ms", j.last_run_at_ms},
          {"last_run", iso_or_empty(j.last_run_at_ms, tz)},
          {"last_status", j.last_status},
          {"last_error", j.last_error},
          {"channel", j.origin_channel},
          {"chat_id", j.origin_chat_id},
          {"session_key", j.session_key},
          {"message", j.message},
          {"delete_after_run", j.delete_after_run},
          {"runs", runs}};
}

std::string jobs_json(job_store& store) {
  auto list = store.read();
  json jobs = json::array();
  for (auto& j : list.jobs)
    jobs.push_back(job_view(j));
  return json{{"jobs", jobs}, {"problems", list.problems}}.dump(
    -1, ' ', false, json::error_handler_t::replace);
}

json edit_job(job_store& store, const std::string& op, const std::string& id,
              const json& form, int64_t now_ms, const std::string& agent) {
  if (op == "add")
    return add(store, form.is_object() ? form : json::object(), now_ms,
               agent);
  if (id.empty())
    return refusal("job_id: which job is needed");
  if (op == "remove") {
    auto r = remove_job(store, id);
    if (!r.ok)
      return refusal(r.text.rfind("Error: ", 0) == 0 ? r.text.substr(7)
                                                      : r.text);
    return {{"ok", true}, {"removed", id}};
  }
  std::string why;
  bool found = false;
  json view;
  auto werr = store.update([&](job_list& list) {
    auto it = std::find_if(list.jobs.begin(), list.jobs.end(),
                           [&](const job& j) { return j.id == id; });
    if (it == list.jobs.end())
      return false;
    found = true;
    if (it->payload_kind == "system_event") {
      why = "job " + id + " is a protected system job: its schedule "
            "comes from the config (gateway.heartbeat, agents.defaults."
            "dream)";
      return false;
    }
    auto copy = *it;
    why = change(copy, op, form.is_object() ? form : json::object(), now_ms,
                 agent);
    if (!why.empty())
      return false;
    copy.updated_at_ms = now_ms;
    *it = copy;
    view = job_view(copy);
    return true;
  });
  if (!werr.empty())
    return refusal("the job could not be saved: " + werr);
  if (!found)
    return refusal("job " + id + " not found");
  if (!why.empty())
    return refusal(why);
  return {{"ok", true}, {"job", view}};
}

std::string record_run(job_store& store, const std::string& id,
                       int64_t now_ms, const std::string& status,
                       const std::string& error) {
  return store.update([&](job_list& list) {
    for (auto& j : list.jobs)
      if (j.id == id) {
        j.last_run_at_ms = now_ms;
        j.last_status = status;
        j.last_error = error;
        j.updated_at_ms = now_ms;
        add_run(j, {now_ms, status, 0, error});
        return true;
      }
    return false;
  });
}

} // namespace nb::cron
