#include "actors/subagents/subagents.hpp"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include <caf/event_based_actor.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/clock.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/runner/runner.hpp"
#include "actors/subagents/subagent_texts.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

subagent_config with_floor(subagent_config c) {
  c.max_concurrent = std::max(1, c.max_concurrent);
  c.max_iterations = std::clamp(c.max_iterations, 1, 15);
  return c;
}

std::string new_id(subagents_pointer self) {
  char buf[9];
  do {
    std::snprintf(buf, sizeof buf, "%08x",
                  static_cast<unsigned>(self->state.rng() & 0xffffffffu));
  } while (self->state.running.count(buf));
  return buf;
}

void report(subagents_pointer self) {
  auto& st = self->state;
  if (!st.stats)
    return;
  self->send(st.stats, gauge_sample{"subagents_running",
                                    static_cast<int64_t>(st.running.size())});
  self->send(st.stats, gauge_sample{"subagents_started", st.started});
  self->send(st.stats, gauge_sample{"subagents_failed", st.failed});
}

tool_result spawn_result(const tool_call& call, std::string text,
                         bool is_error) {
  tool_result r;
  r.call_id = call.id;
  r.name = call.name;
  r.content = std::move(text);
  r.is_error = is_error;
  return r;
}

void announce(subagents_pointer self, const subagents_state::task& t,
              const std::string& result, bool ok) {
  auto& st = self->state;
  inbound_msg in;
  in.channel = t.channel;
  in.chat_id = t.chat_id;
  in.sender_id = "subagent";
  in.content = announce_text(t.info.label, t.info.task, result, ok);
  in.metadata_json = json{{"_subagent_result", true},
                          {"_subagent_task_id", t.info.id},
                          {"_subagent_label", t.info.label}}
                       .dump();
  // The session key without the agent's prefix: the router puts it back.
  auto key = t.info.session_key;
  if (t.agent != main_agent && key.rfind(t.agent + ":", 0) == 0)
    key.erase(0, t.agent.size() + 1);
  in.session_key_override = key;
  set_agent(in, t.agent);
  if (st.announce_to)
    self->send(st.announce_to, std::move(in));
  else
    log::get("subagents")->warn("[{}] subagent {} finished, but there is no "
                                "router to report it to",
                                t.info.session_key, t.info.id);
}

/// A subagent's runner answered (or died): report to whoever waits.
void finished(subagents_pointer self, const std::string& id,
              turn_outcome out, const caf::error& err) {
  auto& st = self->state;
  auto i = st.running.find(id);
  if (i == st.running.end())
    return;
  auto t = std::move(i->second);
  st.running.erase(i);
  // Its background exec sessions end with it (nobody could reach them).
  if (t.tools)
    self->send(t.tools, cancel_tools{"subagent:" + t.info.id, {}});
  bool ok = false;
  std::string result;
  if (err) {
    result = "Error: the subagent stopped unexpectedly ("
             + self->system().render(err) + ")";
  } else {
    result = result_text(out, ok);
  }
  if (!ok && !t.info.stopping)
    ++st.failed;
  log::get("subagents")->info("[{}] subagent {} [{}] {}", t.info.session_key,
                              t.info.id, t.info.label,
                              t.info.stopping ? "stopped"
                              : ok            ? "completed"
                                              : "failed");
  report(self);
  if (t.wait) {
    t.promise.deliver(spawn_result({t.call_id, "spawn", ""}, result, !ok));
    return;
  }
  // A stopped subagent is not announced: the user asked for the stop.
  if (!t.info.stopping)
    announce(self, t, result, ok);
}

caf::result<tool_result> start(subagents_pointer self, spawn_subagent& rq) {
  auto& st = self->state;
  auto args = parse_spawn_args(rq.call.arguments_json);
  if (!args.error.empty())
    return spawn_result(rq.call,
                        "Error: Invalid parameters for tool 'spawn': "
                          + args.error + tool_error_hint,
                        true);
  if (st.running.size() >= static_cast<size_t>(st.cfg.max_concurrent))
    return spawn_result(rq.call,
                        limit_text(st.running.size(), st.cfg.max_concurrent),
                        false);
  if (!st.provider)
    return spawn_result(rq.call,
                        "Error: no model is available for a "
                        "subagent"
                          + std::string{tool_error_hint},
                        true);
  auto id = new_id(self);
  subagents_state::task t;
  t.info = {id, args.label.empty() ? default_label(args.task) : args.label,
            args.task, rq.session_key, unix_ms(), false};
  t.channel = rq.channel;
  t.chat_id = rq.chat_id;
  t.agent = rq.agent.empty() ? std::string{main_agent} : rq.agent;
  t.wait = args.wait;
  t.call_id = rq.call.id;
  // The calling agent's workspace and tools (main's when not given).
  auto workspace = rq.workspace.empty() ? st.cfg.workspace : rq.workspace;
  auto tools = rq.tools ? caf::actor_cast<tools_actor>(rq.tools) : st.tools;
  t.tools = tools;
  // Its own context: no session to inject into, no spawn tool.
  runner_settings rs;
  rs.provider = st.provider;
  rs.tools = tools;
  rs.stats = st.stats;
  rs.model_timeout = st.cfg.model_timeout;
  rs.tool_timeout = st.cfg.tool_timeout;
  rs.context_window_tokens = st.cfg.context_window_tokens;
  rs.offload = offload_settings{workspace};
  rs.offload.max_chars = st.cfg.max_tool_result_chars;
  t.runner = self->spawn(runner_impl, std::move(rs));
  run_turn turn;
  turn.session_key = "subagent:" + id;
  turn.channel = rq.channel;
  turn.chat_id = rq.chat_id;
  turn.turn_id = "subagent:" + id;
  turn.model = rq.model;
  turn.messages_json
    = json::array({{{"role", "system"},
                    {"content", subagent_system_prompt(workspace)}},
                   {{"role", "user"}, {"content", args.task}}})
        .dump();
  turn.max_iterations = st.cfg.max_iterations;
  turn.max_tokens = st.cfg.max_tokens;
  turn.temperature = args.temperature >= 0 ? args.temperature
                                           : st.cfg.temperature;
  turn.reasoning_effort = st.cfg.reasoning_effort;
  turn.suppress_delivery = true;
  turn.allowed_tools = subagent_tools();
  turn.fail_on_tool_error = st.cfg.fail_on_tool_error;
  turn.agent = t.agent;
  auto limit = st.cfg.model_timeout * (st.cfg.max_iterations + 2)
               + st.cfg.tool_timeout * st.cfg.max_iterations;
  timed_request(self, t.runner, limit, std::move(turn))
    .then([self, id](turn_outcome& out) { finished(self, id, out, {}); },
          [self, id](caf::error& err) {
            finished(self, id, {}, err);
          });
  log::get("subagents")->info("[{}] subagent {} [{}] started",
                              rq.session_key, id, t.info.label);
  auto label = t.info.label;
  bool wait = t.wait;
  if (wait)
    t.promise = self->make_response_promise<tool_result>();
  auto promise = t.promise;
  st.running.emplace(id, std::move(t));
  ++st.started;
  report(self);
  if (wait)
    return promise;
  return spawn_result(rq.call, started_text(label, id), false);
}

} // namespace

subagent_config make_subagent_config(const settings& cfg,
                                     std::chrono::seconds model_timeout,
                                     std::chrono::seconds tool_timeout) {
  subagent_config c;
  c.workspace = cfg.workspace_path();
  c.max_concurrent = cfg.agent.max_concurrent_subagents;
  c.fail_on_tool_error = cfg.agent.fail_on_tool_error;
  c.max_iterations = std::min(15, cfg.agent.max_tool_iterations);
  c.max_tokens = cfg.agent.max_tokens;
  c.temperature = cfg.agent.temperature;
  c.reasoning_effort = cfg.agent.reasoning_effort;
  c.context_window_tokens = cfg.agent.context_window_tokens;
  c.max_tool_result_chars
    = static_cast<size_t>(std::max(1000, cfg.agent.max_tool_result_chars));
  c.model_timeout = model_timeout;
  c.tool_timeout = tool_timeout;
  for (const auto& a : cfg.agents)
    c.can_message[a.id] = a.can_message;
  return c;
}

subagents_actor::behavior_type
subagents_impl(subagents_pointer self, subagent_config cfg,
               provider_actor provider, tools_actor tools, stats_actor stats) {
  auto& st = self->state;
  st.cfg = with_floor(std::move(cfg));
  st.provider = std::move(provider);
  st.tools = std::move(tools);
  st.stats = stats;
  st.rng.seed(std::random_device{}());
  st.meter.start(self, "subagents", std::move(stats));
  // Stopping (gateway shutdown): the running subagents stop too, instead
  // of waiting out their model and tool timeouts on a stopped provider.
  self->set_exit_handler([self](caf::exit_msg& em) {
    if (!em.reason)
      return;
    for (auto& [id, t] : self->state.running)
      if (t.runner)
        self->send_exit(t.runner, em.reason);
    self->quit(em.reason);
  });
  return {
    [self](spawn_subagent& rq) -> caf::result<tool_result> {
      auto t = self->state.meter.measure();
      return start(self, rq);
    },
    [self](agent_message& rq) -> caf::result<tool_result> {
      auto t = self->state.meter.measure();
      return ask_agent(self, rq);
    },
    [self](session_mail& m) -> std::string {
      auto t = self->state.meter.measure();
      try {
        return send_session_mail(self, m);
      } catch (const std::exception& e) {
        self->state.meter.failed();
        return std::string{"Error: the message could not be sent ("} + e.what()
               + ")";
      }
    },
    [self](subagent_stop_atom, const std::string& key) -> int32_t {
      auto t = self->state.meter.measure();
      int32_t n = 0;
      for (auto& [id, task] : self->state.running)
        if (task.info.session_key == key && !task.info.stopping) {
          task.info.stopping = true;
          // Its runner kills its running tool calls and ends at once.
          self->send(task.runner, cancel_turn_atom::value);
          ++n;
        }
      return n;
    },
    [self](subagent_count_atom, const std::string& key) -> int32_t {
      auto t = self->state.meter.measure();
      return static_cast<int32_t>(std::count_if(
        self->state.running.begin(), self->state.running.end(),
        [&](auto& e) {
          return e.second.info.session_key == key && !e.second.info.stopping;
        }));
    },
    [self](subagent_list_atom) {
      auto t = self->state.meter.measure();
      std::vector<subagent_info> out;
      for (auto& [id, task] : self->state.running)
        out.push_back(task.info);
      return out;
    },
    [self](inbound_sink& to) { self->state.announce_to = std::move(to); },
    [self](provider_actor& p, tools_actor& t, stats_actor& s) {
      self->state.provider = std::move(p);
      self->state.tools = std::move(t);
      self->state.stats = std::move(s);
    },
  };
}

} // namespace nb
