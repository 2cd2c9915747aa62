#include "actors/agents/agent_route.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace nb {

namespace {

/// How specific a matching binding is (-1: it does not match). A chat id
/// outweighs a sender, a sender outweighs group/direct, and that outweighs
/// the channel instance; each named field adds its weight.
int specificity(const agent_binding& b, const route_facts& f) {
  if (b.channel != f.channel && b.channel != "*")
    return -1;
  int n = 0;
  auto field = [&](const std::string& want, const std::string& have,
                   int weight) {
    if (want.empty())
      return true;
    n += weight;
    return want == have;
  };
  if (!field(b.chat_id, f.chat_id, 8) || !field(b.sender_id, f.sender_id, 4)
      || !field(b.instance, f.instance, 1))
    return -1;
  if (b.group >= 0) {
    n += 2;
    if ((b.group == 1) != f.group)
      return -1;
  }
  return n;
}

nlohmann::json metadata_of(const inbound_msg& in) {
  auto meta = nlohmann::json::parse(in.metadata_json, nullptr, false);
  return meta.is_object() ? meta : nlohmann::json::object();
}

} // namespace

std::string match_binding(const std::vector<agent_binding>& bindings,
                          const route_facts& facts) {
  const agent_binding* best = nullptr;
  int best_n = -1;
  for (const auto& b : bindings) {
    auto n = specificity(b, facts);
    if (n > best_n) { // strictly more specific: earlier entries win ties
      best = &b;
      best_n = n;
    }
  }
  return best != nullptr ? best->agent : std::string{main_agent};
}

std::string choose_agent(const std::vector<agent_binding>& bindings,
                         const route_facts& facts,
                         const std::string& requested) {
  if (!requested.empty())
    for (const auto& b : bindings)
      if (b.agent == requested && match_binding({b}, facts) == requested)
        return requested;
  return match_binding(bindings, facts);
}

std::string agent_of(const inbound_msg& in) {
  if (in.metadata_json.find(agent_meta_key) == std::string::npos)
    return {}; // most messages: no parse
  auto meta = metadata_of(in);
  auto i = meta.find(agent_meta_key);
  return i != meta.end() && i->is_string() ? i->get<std::string>()
                                           : std::string{};
}

bool is_temporary(const inbound_msg& in) {
  if (in.metadata_json.find(temporary_meta_key) == std::string::npos)
    return false; // most messages: no parse
  auto meta = metadata_of(in);
  auto i = meta.find(temporary_meta_key);
  return i != meta.end() && i->is_boolean() && i->get<bool>();
}

void set_agent(inbound_msg& in, const std::string& agent) {
  auto meta = metadata_of(in);
  meta[agent_meta_key] = agent;
  in.metadata_json = meta.dump();
}

void resolve_agent(inbound_msg& in, const std::vector<agent_binding>& bindings,
                   route_facts facts) {
  if (!agent_of(in).empty())
    return;
  if (bindings.empty())
    return; // one agent: main, and the message stays as it was
  if (facts.channel.empty())
    facts.channel = in.channel;
  if (facts.instance.empty())
    facts.instance = in.channel;
  if (facts.chat_id.empty())
    facts.chat_id = in.chat_id;
  if (facts.sender_id.empty())
    facts.sender_id = in.sender_id;
  if (!facts.group) {
    auto meta = metadata_of(in);
    auto g = meta.find("_is_group");
    facts.group = g != meta.end() && g->is_boolean() && g->get<bool>();
  }
  set_agent(in, match_binding(bindings, facts));
}

std::string agent_session_key(const std::string& agent,
                              const std::string& base) {
  if (agent.empty() || agent == main_agent)
    return base;
  return agent + ':' + base;
}

std::string routed_session_key(const inbound_msg& in) {
  return agent_session_key(agent_of(in), session_key(in));
}

std::string agent_of_key(const std::string& key,
                         const std::vector<std::string>& agent_ids) {
  auto colon = key.find(':');
  if (colon != std::string::npos) {
    auto prefix = key.substr(0, colon);
    if (prefix != main_agent
        && std::find(agent_ids.begin(), agent_ids.end(), prefix)
             != agent_ids.end())
      return prefix;
  }
  return main_agent;
}

} // namespace nb
