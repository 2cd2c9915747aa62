#include "tests/subagents/gateway.hpp"

#include <caf/all.hpp>

#include "actors/provider/provider.hpp"
#include "actors/router/router.hpp"
#include "actors/session/session.hpp"
#include "actors/stats/stats.hpp"
#include "actors/store/session_files.hpp"
#include "actors/store/session_store.hpp"
#include "actors/subagents/subagents.hpp"
#include "actors/tools/tools_front.hpp"

namespace nb::test {

using namespace std::chrono;

sub_gateway::sub_gateway(int max_concurrent) {
  cfg = settings_for(home, llm);
  cfg.agent.max_concurrent_subagents = max_concurrent;
  auto& sys = fx.sys;
  svc.stats = spawn_stats(sys);
  svc.store = spawn_store(sys, *resolve_sessions_dir(cfg), 2, svc.stats);
  svc.provider = spawn_provider(sys, cfg, svc.stats);
  svc.tools = spawn_tools(sys, cfg, svc.stats);
  svc.outbox = caf::actor_cast<outbound_sink>(outbox);
  auto scfg = make_session_config(cfg);
  svc.subagents = sys.spawn(
    subagents_impl,
    make_subagent_config(cfg, scfg.model_timeout, scfg.tool_timeout),
    svc.provider, svc.tools, svc.stats);
  router = sys.spawn(router_impl, scfg, svc, agent_plan{});
  caf::anon_send(svc.subagents, caf::actor_cast<inbound_sink>(router));
}

sub_gateway::~sub_gateway() {
  for (auto h : {caf::actor_cast<caf::actor>(router),
                 caf::actor_cast<caf::actor>(svc.subagents),
                 caf::actor_cast<caf::actor>(svc.tools),
                 caf::actor_cast<caf::actor>(svc.provider),
                 caf::actor_cast<caf::actor>(svc.store),
                 caf::actor_cast<caf::actor>(svc.stats)})
    caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
}

void sub_gateway::send(const std::string& text, const std::string& chat) {
  inbound_msg in;
  in.channel = "test";
  in.sender_id = "tester";
  in.chat_id = chat;
  in.content = text;
  in.reply_to = caf::actor_cast<outbound_sink>(user);
  user->send(router, std::move(in));
}

namespace {

outbound_msg next_final(caf::scoped_actor& self, seconds timeout) {
  outbound_msg out;
  out.content = "<timeout>";
  bool done = false;
  while (!done)
    self->receive(
      [&](outbound_msg& m) {
        if (m.kind == outbound_kind::final_reply) {
          out = std::move(m);
          done = true;
        }
      },
      caf::after(timeout) >> [&] { done = true; });
  return out;
}

} // namespace

std::string sub_gateway::reply(seconds timeout) {
  return next_final(user, timeout).content;
}

outbound_msg sub_gateway::pushed(seconds timeout) {
  return next_final(outbox, timeout);
}

std::vector<nlohmann::json> sub_gateway::requests(bool subagent) const {
  std::vector<nlohmann::json> out;
  for (auto& r : llm.requests())
    if (from_subagent(r.body) == subagent)
      out.push_back(r.body);
  return out;
}

std::vector<subagent_info> sub_gateway::running() {
  std::vector<subagent_info> out;
  user->request(svc.subagents, seconds(10), subagent_list_atom::value)
    .receive([&](std::vector<subagent_info>& xs) { out = std::move(xs); },
             [](caf::error&) {});
  return out;
}

bool from_subagent(const nlohmann::json& body) {
  auto& msgs = body["messages"];
  return msgs.is_array() && !msgs.empty()
         && msgs[0].value("content", "").rfind("# Subagent", 0) == 0;
}

const nlohmann::json& last_message(const nlohmann::json& body) {
  return body["messages"].back();
}

bool asks(const nlohmann::json& body, const std::string& part) {
  auto& msgs = body["messages"];
  for (auto i = msgs.rbegin(); i != msgs.rend(); ++i)
    if (i->value("role", "") == "user") {
      auto c = (*i)["content"];
      return c.is_string() && c.get<std::string>().find(part)
                                != std::string::npos;
    }
  return false;
}

} // namespace nb::test
