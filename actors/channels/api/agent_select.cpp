#include "actors/channels/api/agent_select.hpp"

#include <algorithm>

#include "actors/agents/agent_route.hpp"

namespace nb::api {

api_agents make_api_agents(const settings& cfg) {
  return {cfg.agent_ids(), cfg.bindings, cfg.agent.model};
}

void select_agent(const api_agents& agents, const std::string& model,
                  inbound_msg& msg) {
  if (agents.ids.size() <= 1)
    return; // one agent: main, the message stays as it was
  if (std::find(agents.ids.begin(), agents.ids.end(), model)
      != agents.ids.end()) {
    set_agent(msg, model);
    return;
  }
  resolve_agent(msg, agents.bindings);
}

std::vector<std::string> listed_models(const api_agents& agents) {
  std::vector<std::string> out{agents.model};
  if (agents.ids.size() > 1)
    for (const auto& id : agents.ids)
      if (std::find(out.begin(), out.end(), id) == out.end())
        out.push_back(id);
  return out;
}

} // namespace nb::api
