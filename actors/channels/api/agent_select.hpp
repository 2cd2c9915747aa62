// Which agent answers an API request: "model": "<agent id>" selects that
// agent; any other model name goes to agents.bindings (channel "api") as
// before. Kept apart from the HTTP server so any front door can call it.
#pragma once

#include <string>
#include <vector>

#include "config/settings.hpp"
#include "messages/chat.hpp"

namespace nb::api {

/// What the API knows of the gateway's agents.
struct api_agents {
  std::vector<std::string> ids; ///< "main" first, then agents.list
  std::vector<agent_binding> bindings;
  std::string model; ///< agents.defaults.model (listed as today)
};

api_agents make_api_agents(const settings& cfg);

/// Stamps the agent `model` picks on `msg` (see above); a single-agent
/// gateway leaves the message as it was.
void select_agent(const api_agents& agents, const std::string& model,
                  inbound_msg& msg);

/// The ids GET /v1/models lists: the configured model, then every agent.
std::vector<std::string> listed_models(const api_agents& agents);

} // namespace nb::api
