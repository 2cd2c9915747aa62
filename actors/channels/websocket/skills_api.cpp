#include "actors/channels/websocket/skills_api.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

#include "actors/channels/websocket/api_util.hpp"
#include "actors/channels/websocket/control_ask.hpp"

namespace nb::ws {

namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* memory_file = "memory/MEMORY.md";

/// Asks the workspace actor; the answer as JSON or as a problem.
template <class Reply, class Render, class... Ts>
api_reply ask_files(caf::actor_system& sys, const std::string& agent,
                    int fail_status, Render render, Ts&&... xs) {
  auto ws = find_workspace(sys, agent);
  if (auto* e = std::get_if<ask_error>(&ws))
    return problem(409, e->text);
  auto got = ask<Reply>(sys, std::get<workspace_admin_actor>(ws), 10s,
                        std::forward<Ts>(xs)...);
  if (auto* e = std::get_if<ask_error>(&got))
    return problem(fail_status, e->text);
  return render(std::get<Reply>(got));
}

api_reply json_text(const std::string& text) {
  return {200, text};
}

/// The skills report with the agent it is for and the agents to pick from.
auto skills_with_agents(const control_agents& agents,
                        const std::string& agent) {
  return [&agents, agent](const std::string& text) {
    auto doc = json::parse(text, nullptr, false);
    if (!doc.is_object())
      return api_reply{200, text};
    doc["agent"] = agent;
    doc["agents"] = agents.ids;
    return answer(200, doc);
  };
}

api_reply history(caf::actor_system& sys, const std::string& agent,
                  const std::string& rest) {
  history_query q;
  if (!rest.empty()) {
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(),
                                     q.before);
    if (ec != std::errc{} || end != rest.data() + rest.size() || q.before < 0)
      return problem(400, "memory/history/<before>: a cursor number");
  }
  return ask_files<std::string>(sys, agent, 500, json_text, q);
}

} // namespace

std::optional<api_reply> skills_api(caf::actor_system& sys,
                                    const control_agents& agents,
                                    const api_call& call) {
  const auto& name = call.name;
  bool skills = name == "skills" || name.rfind("skills/", 0) == 0;
  bool memory = name == "memory" || name.rfind("memory/", 0) == 0;
  if (!skills && !memory)
    return std::nullopt;
  auto picked = page_agent(agents, call);
  if (auto* unknown = std::get_if<api_reply>(&picked))
    return *unknown;
  const auto& agent = std::get<std::string>(picked);
  if (name == "memory" && call.method == "PUT") {
    auto form = json::parse(call.body, nullptr, false);
    if (!form.is_object() || !form.contains("text")
        || !form["text"].is_string())
      return problem(400, "text: the new MEMORY.md is needed");
    workspace_write rq{memory_file, form["text"].get<std::string>(),
                       form.value("version", std::string{})};
    return ask_files<workspace_text>(
      sys, agent, 400,
      [](const workspace_text& t) {
        auto out = file_json(t);
        out["ok"] = true;
        return answer(200, out);
      },
      std::move(rq));
  }
  if (call.method != "GET")
    return problem(405, name == "memory" ? "GET or PUT only" : "GET only");
  if (name == "skills")
    return ask_files<std::string>(sys, agent, 500,
                                  skills_with_agents(agents, agent),
                                  skills_report_atom::value);
  if (skills)
    return ask_files<workspace_text>(
      sys, agent, 404,
      [](const workspace_text& t) { return answer(200, file_json(t)); },
      skill_read{name.substr(7)});
  if (name == "memory")
    return ask_files<workspace_text>(
      sys, agent, 500,
      [](const workspace_text& t) { return answer(200, file_json(t)); },
      workspace_read{memory_file});
  if (name == "memory/history")
    return history(sys, agent, "");
  if (name.rfind("memory/history/", 0) == 0)
    return history(sys, agent, name.substr(15));
  return problem(404, "memory, memory/history[/<before>]");
}

} // namespace nb::ws
