#include "actors/router/agent_plan.hpp"

namespace nb {

agent_plan make_agent_plan(const settings& cfg, const session_config& base) {
  agent_plan out;
  out.bindings = cfg.bindings;
  for (const auto& a : cfg.agents) {
    auto view = std::make_shared<const settings>(cfg.for_agent(a.id));
    agent_slot slot;
    slot.cfg = make_session_config(*view);
    slot.cfg.agent = a.id;
    slot.cfg.agent_name = a.name;
    slot.cfg.can_message = a.can_message;
    slot.cfg.started_at_us = base.started_at_us;
    slot.files = {a.id,
                  slot.cfg.workspace,
                  {a.skills_set, a.skills, view->agent.disabled_skills,
                   slot.cfg.config_dir}};
    slot.view = std::move(view);
    out.agents.emplace(a.id, std::move(slot));
  }
  return out;
}

} // namespace nb
