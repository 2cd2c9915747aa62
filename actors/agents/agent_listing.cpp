#include "actors/agents/agent_listing.hpp"

namespace nb {

std::string describe_binding(const agent_binding& b) {
  std::string out = b.channel;
  if (!b.instance.empty())
    out += " instance=" + b.instance;
  if (!b.chat_id.empty())
    out += " chatId=" + b.chat_id;
  if (!b.sender_id.empty())
    out += " senderId=" + b.sender_id;
  if (b.group >= 0)
    out += b.group == 1 ? " group=true" : " group=false";
  return out + " -> " + b.agent;
}

std::string agent_summary(const settings& cfg, const std::string& id) {
  auto view = cfg.for_agent(id);
  const auto* a = cfg.find_agent(id);
  std::string out = id;
  if (a != nullptr && !a->name.empty())
    out += " (" + a->name + ")";
  out += ", model " + view.agent.model + ", workspace " + view.workspace_path();
  return out;
}

std::string agents_listing(const settings& cfg) {
  std::string out = "Agents:\n";
  for (const auto& id : cfg.agent_ids()) {
    auto view = cfg.for_agent(id);
    const auto* a = cfg.find_agent(id);
    out += "  " + id;
    if (id == main_agent)
      out += "  (agents.defaults)";
    else if (!a->name.empty())
      out += "  (" + a->name + ")";
    out += "\n    model:     " + view.agent.model
           + "\n    workspace: " + view.workspace_path() + "\n";
    if (a != nullptr && !a->can_message.empty()) {
      out += "    can message:";
      for (const auto& t : a->can_message)
        out += " " + t;
      out += "\n";
    }
  }
  out += "Bindings (the most specific wins: chatId, senderId, group, "
         "instance; then the earlier one; else main):\n";
  if (cfg.bindings.empty())
    out += "  none: every message goes to main\n";
  for (size_t i = 0; i < cfg.bindings.size(); ++i)
    out += "  " + std::to_string(i + 1) + ". "
           + describe_binding(cfg.bindings[i]) + "\n";
  return out;
}

} // namespace nb
