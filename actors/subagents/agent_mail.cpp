// send_to_agent: a turn of another agent of this gateway, in its session
// "{agent}:agent:{from}", whose final reply becomes the tool result. Only
// where agents.list[].canMessage allows it, and at most max_agent_depth
// agents' turns in one chain, so two agents asking each other cannot loop
// (nor wait on each other) forever.
#include <algorithm>

#include <nlohmann/json.hpp>

#include <caf/event_based_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/log.hpp"
#include "actors/subagents/subagents.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

tool_result mail_result(const tool_call& call, std::string text,
                        bool is_error) {
  tool_result r;
  r.call_id = call.id;
  r.name = call.name;
  r.content = std::move(text) + (is_error ? tool_error_hint : "");
  r.is_error = is_error;
  return r;
}

/// Takes the other agent's replies; the final one answers the call.
outbound_sink::behavior_type
reply_catcher(outbound_sink::pointer self,
              caf::typed_response_promise<tool_result> promise,
              tool_call call, std::string to) {
  return {
    [=](outbound_msg& m) mutable {
      if (m.kind != outbound_kind::final_reply)
        return; // progress lines and deltas are not the answer
      promise.deliver(mail_result(
        call, m.is_error ? "Error: agent " + to + " failed: " + m.content
                         : m.content,
        m.is_error));
      self->quit();
    },
  };
}

} // namespace

caf::result<tool_result> ask_agent(subagents_pointer self,
                                   agent_message& rq) {
  auto& st = self->state;
  auto args = json::parse(rq.call.arguments_json, nullptr, false);
  auto text = [&](const char* key) {
    return args.is_object() && args.contains(key) && args[key].is_string()
             ? args[key].get<std::string>()
             : std::string{};
  };
  auto to = text("agent");
  auto message = text("message");
  if (to.empty() || message.empty())
    return mail_result(rq.call, "Error: Invalid parameters for tool "
                                "'send_to_agent': agent and message are "
                                "required strings",
                       true);
  auto allowed = st.cfg.can_message.find(rq.from);
  if (allowed == st.cfg.can_message.end()
      || std::find(allowed->second.begin(), allowed->second.end(), to)
           == allowed->second.end())
    return mail_result(rq.call, "Error: agent " + rq.from
                                  + " may not message agent " + to
                                  + " (agents.list[].canMessage)",
                       true);
  // At most max_agent_depth agents' turns in one chain (the user's agent
  // counts): a third hop could reach a session of the chain that is still
  // waiting for this very answer (A -> B -> A -> B) and never return.
  if (rq.depth + 1 >= max_agent_depth)
    return mail_result(rq.call, "Error: " + std::to_string(rq.depth + 1)
                                  + " agents are already working on this "
                                    "chain of requests (the limit is "
                                  + std::to_string(max_agent_depth)
                                  + "); answer with what you have",
                       true);
  if (!st.announce_to)
    return mail_result(rq.call, "Error: no router to reach agent " + to,
                       true);
  auto promise = self->make_response_promise<tool_result>();
  auto catcher = self->spawn(reply_catcher, promise, rq.call, to);
  inbound_msg in;
  in.channel = "agent";
  in.chat_id = rq.from;
  in.sender_id = rq.from;
  in.content = message;
  // The other agent's message tool must not write to a chat of its own.
  in.metadata_json = json{{agent_meta_key, to},
                          {"_agent_depth", rq.depth + 1},
                          {"_suppress_message_delivery", true}}
                       .dump();
  in.reply_to = catcher;
  log::get("subagents")->info("[{}] {} asks agent {} (depth {})",
                              rq.session_key, rq.from, to, rq.depth + 1);
  self->send(st.announce_to, std::move(in));
  return promise;
}

} // namespace nb
