// How the WebUI's control pages reach the owners of an agent's files and
// jobs (issue 20, parts 4 and 5): find them by their registry names and ask
// them, blocking the API's worker thread (never an actor's) until the
// answer or a timeout. The owners do the file I/O; the page only asks.
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include <caf/actor_cast.hpp>
#include <caf/actor_registry.hpp>
#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/channels/websocket/api_util.hpp"
#include "actors/channels/websocket/ws_server.hpp"
#include "config/settings.hpp"
#include "messages/control.hpp"

namespace nb::ws {

/// The agents the control pages can serve (from the settings the channel
/// started with): their ids, "main" first, and each one's heartbeat.
struct control_agents {
  std::vector<std::string> ids{"main"};
  std::map<std::string, heartbeat_settings> heartbeat;
};

/// The agents of `cfg` as the control pages see them.
inline control_agents control_agents_of(const settings& cfg) {
  control_agents out;
  out.ids = cfg.agent_ids();
  for (const auto& id : out.ids)
    out.heartbeat[id] = cfg.for_agent(id).gateway.heartbeat;
  return out;
}

/// The agent a control call is for: its ?agent= (default "main"), or a 404
/// naming an agent this gateway does not have.
inline std::variant<std::string, api_reply>
page_agent(const control_agents& agents, const api_call& call) {
  auto it = call.query.find("agent");
  std::string id = it == call.query.end() || it->second.empty()
                     ? std::string{"main"}
                     : it->second;
  if (std::find(agents.ids.begin(), agents.ids.end(), id) != agents.ids.end())
    return id;
  std::string known;
  for (const auto& a : agents.ids)
    known += (known.empty() ? "" : ", ") + a;
  return problem(404, "no agent named \"" + id
                        + "\" (this gateway has: " + known + ")");
}

/// A workspace file as the pages get it: its text and the version a save
/// must name.
inline nlohmann::json file_json(const workspace_text& t) {
  return {{"file", t.file},
          {"text", t.text},
          {"version", t.version},
          {"origin", t.origin}};
}

/// Why a request got no answer.
struct ask_error {
  std::string text;
};

/// What one request answered, or why not.
template <class Reply>
using asked = std::variant<Reply, ask_error>;

/// The text an owner put in its error, else CAF's rendering of it.
inline std::string error_text(caf::actor_system& sys, const caf::error& err) {
  const auto& ctx = err.context();
  if (ctx.size() == 1 && ctx.match_element<std::string>(0))
    return ctx.get_as<std::string>(0);
  return sys.render(err);
}

/// Sends `xs` to `who` and waits up to `timeout` for a `Reply`.
template <class Reply, class Handle, class... Ts>
asked<Reply> ask(caf::actor_system& sys, const Handle& who,
                 std::chrono::seconds timeout, Ts&&... xs) {
  asked<Reply> out{ask_error{"no answer"}};
  caf::scoped_actor self{sys};
  self->request(who, timeout, std::forward<Ts>(xs)...)
    .receive([&](Reply& r) { out = std::move(r); },
             [&](caf::error& err) { out = ask_error{error_text(sys, err)}; });
  return out;
}

/// The agent's workspace actor (spawned by the router if no session of the
/// agent ran yet), or why there is none.
inline asked<workspace_admin_actor> find_workspace(caf::actor_system& sys,
                                                   const std::string& agent) {
  auto router = caf::actor_cast<agent_files_actor>(
    sys.registry().get(agent_files_atom::value));
  if (!router)
    return ask_error{"this process runs no gateway router"};
  return ask<workspace_admin_actor>(sys, router, std::chrono::seconds(5),
                                    workspace_owner_atom::value, agent);
}

/// The agent's cron actor, or why there is none here.
inline asked<cron_admin_actor> find_cron(caf::actor_system& sys,
                                         const std::string& agent) {
  auto owner = caf::actor_cast<cron_owners_actor>(
    sys.registry().get(schedules_atom::value));
  if (!owner)
    return ask_error{"this process runs no scheduler"};
  return ask<cron_admin_actor>(sys, owner, std::chrono::seconds(5),
                               cron_owner_atom::value, agent);
}

} // namespace nb::ws
