#include "actors/channels/websocket/automations_api.hpp"

#include <nlohmann/json.hpp>

#include "actors/channels/websocket/api_util.hpp"
#include "actors/channels/websocket/control_ask.hpp"
#include "actors/heartbeat/heartbeat_tasks.hpp"

namespace nb::ws {

namespace {

using nlohmann::json;
using namespace std::chrono_literals;

/// HEARTBEAT.md, its state and the evaluator prompt, from the workspace.
json heartbeat_json(caf::actor_system& sys, const std::string& agent,
                    const heartbeat_settings& hb) {
  json out{{"enabled", hb.enabled}, {"interval_s", hb.interval_s}};
  auto ws = find_workspace(sys, agent);
  if (auto* e = std::get_if<ask_error>(&ws)) {
    out["error"] = e->text;
    return out;
  }
  auto files = std::get<workspace_admin_actor>(ws);
  auto file = ask<workspace_text>(sys, files, 10s,
                                  workspace_read{"HEARTBEAT.md"});
  if (auto* t = std::get_if<workspace_text>(&file)) {
    out["file"] = file_json(*t);
    out["active_tasks"] = heartbeat_has_active_tasks(t->text);
  } else {
    out["error"] = std::get<ask_error>(file).text;
  }
  auto eval = ask<workspace_text>(sys, files, 10s,
                                  workspace_read{"prompts/evaluator.md"});
  if (auto* t = std::get_if<workspace_text>(&eval))
    out["evaluator"] = {{"text", t->text}, {"origin", t->origin}};
  return out;
}

api_reply overview(caf::actor_system& sys, const control_agents& agents,
                   const std::string& agent) {
  json out{{"jobs", json::array()},
           {"problems", json::array()},
           {"agent", agent},
           {"agents", agents.ids}};
  auto cron = find_cron(sys, agent);
  if (auto* e = std::get_if<ask_error>(&cron)) {
    out["cron_error"] = e->text;
  } else {
    auto jobs = ask<std::string>(sys, std::get<cron_admin_actor>(cron), 10s,
                                 cron_jobs_atom::value);
    if (auto* text = std::get_if<std::string>(&jobs)) {
      auto doc = json::parse(*text, nullptr, false);
      if (doc.is_object())
        out.update(doc);
    } else {
      out["cron_error"] = std::get<ask_error>(jobs).text;
    }
  }
  out["heartbeat"] = heartbeat_json(sys, agent, agents.heartbeat.at(agent));
  return answer(200, out);
}

api_reply edit_jobs(caf::actor_system& sys, const std::string& agent,
                    cron_edit rq) {
  auto cron = find_cron(sys, agent);
  if (auto* e = std::get_if<ask_error>(&cron))
    return problem(409, e->text);
  // "run" waits for the inbox's receipt (up to its journal timeout).
  auto got = ask<std::string>(sys, std::get<cron_admin_actor>(cron), 45s,
                              std::move(rq));
  if (auto* e = std::get_if<ask_error>(&got))
    return problem(500, e->text);
  auto doc = json::parse(std::get<std::string>(got), nullptr, false);
  bool ok = doc.is_object() && doc.value("ok", false);
  return answer(ok ? 200 : 400, doc);
}

api_reply save_heartbeat(caf::actor_system& sys, const std::string& agent,
                         const json& form) {
  if (!form.contains("text") || !form["text"].is_string())
    return problem(400, "text: the new HEARTBEAT.md is needed");
  auto ws = find_workspace(sys, agent);
  if (auto* e = std::get_if<ask_error>(&ws))
    return problem(409, e->text);
  workspace_write rq{"HEARTBEAT.md", form["text"].get<std::string>(),
                     form.value("version", std::string{})};
  auto got = ask<workspace_text>(sys, std::get<workspace_admin_actor>(ws), 10s,
                                 std::move(rq));
  if (auto* e = std::get_if<ask_error>(&got))
    return problem(400, e->text);
  auto& t = std::get<workspace_text>(got);
  return answer(200, json{{"ok", true},
                          {"file", file_json(t)},
                          {"active_tasks", heartbeat_has_active_tasks(t.text)}});
}

} // namespace

std::optional<api_reply> automations_api(caf::actor_system& sys,
                                         const control_agents& agents,
                                         const api_call& call) {
  const auto& name = call.name;
  const std::string jobs = "cron/jobs";
  bool cron_route = name == jobs || name.rfind(jobs + "/", 0) == 0;
  if (name != "automations" && name != "heartbeat" && !cron_route)
    return std::nullopt;
  auto picked = page_agent(agents, call);
  if (auto* unknown = std::get_if<api_reply>(&picked))
    return *unknown;
  const auto& agent = std::get<std::string>(picked);
  auto edit = [&](cron_edit rq) {
    return edit_jobs(sys, agent, std::move(rq));
  };
  if (name == "automations")
    return call.method == "GET" ? overview(sys, agents, agent)
                                : problem(405, "GET only");
  auto form = call.body.empty() ? json::object()
                                : json::parse(call.body, nullptr, false);
  if (call.method != "GET" && call.method != "DELETE" && !form.is_object())
    return problem(400, "expected a JSON object");
  if (name == "heartbeat")
    return call.method == "PUT" ? save_heartbeat(sys, agent, form)
                                : problem(405, "PUT only (GET "
                                               "/api/automations reads)");
  if (name == jobs)
    return call.method == "POST" ? edit({"add", "", form.dump()})
                                 : problem(405, "POST only");
  // cron/jobs/<id>[/<op>]
  auto rest = name.substr(jobs.size() + 1);
  auto slash = rest.find('/');
  auto id = rest.substr(0, slash);
  auto op = slash == std::string::npos ? std::string{} : rest.substr(slash + 1);
  if (id.empty())
    return problem(404, "no job named");
  if (op.empty()) {
    if (call.method == "PUT")
      return edit({"update", id, form.dump()});
    if (call.method == "DELETE")
      return edit({"remove", id, ""});
    return problem(405, "PUT or DELETE only");
  }
  if (op != "pause" && op != "resume" && op != "run")
    return problem(404, "cron/jobs/<id>/pause, resume or run");
  if (call.method != "POST")
    return problem(405, "POST only");
  return edit({op, id, ""});
}

} // namespace nb::ws
