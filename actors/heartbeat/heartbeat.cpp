#include "actors/heartbeat/heartbeat.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <caf/actor_system.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/common/blocking_task.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

constexpr const char* session_key_hb = "heartbeat";

/// HEARTBEAT.md as the reading thread found it.
struct heartbeat_file {
  bool found = false;
  std::string content;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, heartbeat_file& x) {
  return f(caf::meta::type_name("heartbeat_file"), x.found, x.content);
}

heartbeat_file read_heartbeat_file(const std::string& workspace) {
  heartbeat_file out;
  std::ifstream in{workspace + "/HEARTBEAT.md", std::ios::binary};
  if (!in)
    return out;
  std::ostringstream buf;
  buf << in.rdbuf();
  out.found = true;
  out.content = buf.str();
  return out;
}

/// Ends the beat: logs what happened and tells whoever asked.
void finish(heartbeat_pointer self, const std::string& what) {
  auto& st = self->state;
  st.log->info("beat {}: {}", st.beat, what);
  for (auto& rp : st.waiting)
    rp.deliver(what);
  st.waiting.clear();
  st.running = false;
  st.target.reset();
}

/// The heartbeat's session: "heartbeat", or "{agent}:heartbeat".
std::string hb_key(const heartbeat_config& cfg) {
  return agent_session_key(cfg.agent, session_key_hb);
}

/// The agent's own sessions, keys without its prefix (main: every key not
/// prefixed by another agent).
std::vector<session_activity> own_sessions(const heartbeat_config& cfg,
                                           const session_listing& all) {
  std::vector<session_activity> out;
  auto prefix = cfg.agent + ":";
  for (const auto& s : all.sessions) {
    if (cfg.agent != main_agent) {
      if (s.key.rfind(prefix, 0) == 0)
        out.push_back({s.key.substr(prefix.size()), s.updated_ms});
      continue;
    }
    auto colon = s.key.find(':');
    auto first = s.key.substr(0, colon);
    if (std::find(cfg.other_agents.begin(), cfg.other_agents.end(), first)
        == cfg.other_agents.end())
      out.push_back(s);
  }
  return out;
}

/// Cuts the heartbeat session to its last keep_recent messages, then
/// finishes with `what`.
void trim_then_finish(heartbeat_pointer self, std::string what) {
  auto& st = self->state;
  timed_request(self, st.links.store, st.cfg.call_timeout,
                session_load{hb_key(self->state.cfg)})
    .then(
      [=](session_snapshot& snap) {
        std::vector<json> msgs;
        for (auto& m : snap.messages) {
          auto j = json::parse(m, nullptr, false);
          if (!j.is_discarded())
            msgs.push_back(std::move(j));
        }
        auto kept = retain_recent_turns(msgs, self->state.cfg.keep_recent);
        if (kept.size() == msgs.size()) {
          finish(self, what);
          return;
        }
        session_replace rep{hb_key(self->state.cfg), snap.metadata_json, {}};
        for (auto& m : kept)
          rep.messages.push_back(m.dump());
        timed_request(self, self->state.links.store,
                      self->state.cfg.call_timeout,
                      std::move(rep))
          .then([=](caf::ok_atom) { finish(self, what); },
                [=](caf::error& err) {
                  self->state.log->warn("cannot trim the heartbeat session: {}",
                                        self->system().render(err));
                  finish(self, what);
                });
      },
      [=](caf::error& err) {
        self->state.log->warn("cannot read the heartbeat session: {}",
                              self->system().render(err));
        finish(self, what);
      });
}

void deliver_result(heartbeat_pointer self, const std::string& text) {
  auto& st = self->state;
  auto target = *st.target;
  eval_request rq{"heartbeat", st.prompt, text, /*default_notify=*/false,
                  st.cfg.model};
  timed_request(self, st.links.evaluator, st.cfg.turn_timeout, std::move(rq))
    .then(
      [=](eval_verdict& v) {
        auto& st = self->state;
        if (!v.should_notify) {
          trim_then_finish(self, "silenced (" + v.reason + ")");
          return;
        }
        if (!st.links.outbox) {
          st.log->warn("no outbox to deliver the heartbeat result to {}",
                       target.session_key());
          trim_then_finish(self, "not delivered: no outbox");
          return;
        }
        outbound_msg out;
        out.channel = target.channel;
        out.chat_id = target.chat_id;
        out.session_key = target.session_key();
        out.kind = outbound_kind::final_reply;
        out.content = text;
        out.metadata_json = json{{"_heartbeat", true}}.dump();
        self->send(st.links.outbox, std::move(out));
        trim_then_finish(self, "delivered to " + target.session_key());
      },
      [=](caf::error& err) {
        // The evaluator fails closed itself; this is it being unreachable.
        trim_then_finish(self, "silenced (the evaluator did not answer: "
                                 + self->system().render(err) + ")");
      });
}

/// A turn that never answered must not block every later beat.
void give_up_if_lost(heartbeat_pointer self) {
  auto& st = self->state;
  // The actor's clock: simulated under the deterministic test scheduler.
  if (st.running && self->clock().now() - st.started > st.cfg.turn_timeout)
    finish(self, "gave up waiting for the heartbeat turn");
}

void pick_target(heartbeat_pointer self, std::string content);

void start_beat(heartbeat_pointer self) {
  auto& st = self->state;
  st.running = true;
  st.started = self->clock().now();
  ++st.beat;
  // The file is read on a thread that exists only while it does: the
  // heartbeat lives on the scheduler and, between beats, holds no thread.
  auto workspace = st.cfg.workspace;
  timed_request(self,
                blocking_task(self, "nb.heartbeat",
                              [workspace] {
                                return read_heartbeat_file(workspace);
                              }),
                st.cfg.call_timeout, caf::get_atom::value)
    .then(
      [=](heartbeat_file& file) {
        if (!file.found) {
          finish(self, "skipped: no HEARTBEAT.md");
          return;
        }
        if (!heartbeat_has_active_tasks(file.content)) {
          finish(self, "skipped: no active tasks");
          return;
        }
        pick_target(self, std::move(file.content));
      },
      [=](caf::error& err) {
        finish(self, "skipped: cannot read HEARTBEAT.md ("
                       + self->system().render(err) + ")");
      });
}

/// Chooses the chat to run the beat in and sends the beat's turn there.
void pick_target(heartbeat_pointer self, std::string content) {
  auto& st = self->state;
  timed_request(self, st.links.store, st.cfg.call_timeout, session_list{0})
    .then(
      [=](session_listing& listing) {
        auto& st = self->state;
        st.target = pick_heartbeat_target(own_sessions(st.cfg, listing),
                                          st.cfg.enabled_channels);
        if (!st.target) {
          finish(self, "skipped: no recently active chat on an enabled "
                       "channel");
          return;
        }
        st.prompt = heartbeat_prompt(content);
        inbound_msg in;
        in.channel = st.target->channel;
        in.chat_id = st.target->chat_id;
        in.sender_id = "heartbeat";
        in.content = st.prompt;
        in.session_key_override = session_key_hb;
        // Every result must pass the gate: no direct message-tool sends.
        // The agent is named, so the bindings never send it elsewhere.
        in.metadata_json = json{{"_suppress_message_delivery", true},
                                {agent_meta_key, st.cfg.agent}}
                             .dump();
        in.reply_to = caf::actor_cast<outbound_sink>(self);
        self->send(st.links.router, std::move(in));
      },
      [=](caf::error& err) {
        finish(self, "skipped: cannot list sessions ("
                       + self->system().render(err) + ")");
      });
}

} // namespace

heartbeat_config make_heartbeat_config(const settings& cfg) {
  heartbeat_config out;
  out.workspace = cfg.workspace_path();
  out.interval = std::chrono::seconds(
    std::max(cfg.gateway.heartbeat.interval_s, 1));
  out.keep_recent = static_cast<size_t>(
    std::max(cfg.gateway.heartbeat.keep_recent_messages, 0));
  for (auto& [name, ch] : cfg.channels)
    if (ch.enabled)
      out.enabled_channels.insert(name);
  out.model = cfg.agent.model;
  out.agent = cfg.agent_id;
  for (const auto& id : cfg.agent_ids())
    if (id != main_agent && id != cfg.agent_id)
      out.other_agents.push_back(id);
  return out;
}

heartbeat_actor::behavior_type heartbeat_impl(heartbeat_pointer self,
                                              heartbeat_config cfg,
                                              heartbeat_links links) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.links = std::move(links);
  st.log = log::get("heartbeat");
  st.meter.start(self, "heartbeat", st.links.stats);
  if (st.cfg.own_timer)
    self->delayed_send(self, st.cfg.interval, caf::tick_atom::value);
  return {
    [=](caf::tick_atom) {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      if (st.cfg.own_timer)
        self->delayed_send(self, st.cfg.interval, caf::tick_atom::value);
      give_up_if_lost(self);
      if (!st.running)
        start_beat(self);
    },
    [=](outbound_msg& msg) {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      // Only the turn's final answer matters; progress lines are dropped.
      if (!st.running || !st.target || msg.kind != outbound_kind::final_reply
          || msg.session_key != hb_key(st.cfg))
        return;
      if (msg.is_error || msg.content.empty()) {
        trim_then_finish(self, msg.content.empty()
                                 ? "no answer from the turn"
                                 : "the turn failed: " + msg.content);
        return;
      }
      deliver_result(self, msg.content);
    },
    [=](session_services& svc) {
      auto t = self->state.meter.measure();
      auto& l = self->state.links;
      l.store = svc.store;
      l.outbox = svc.outbox;
      l.stats = svc.stats;
    },
    [=](heartbeat_run_atom) -> caf::result<std::string> {
      auto t = self->state.meter.measure();
      give_up_if_lost(self);
      auto rp = self->make_response_promise<std::string>();
      self->state.waiting.push_back(rp);
      if (!self->state.running)
        start_beat(self);
      return rp;
    },
  };
}

heartbeat_actor spawn_heartbeat(caf::actor_system& sys, heartbeat_config cfg,
                                heartbeat_links links) {
  return sys.spawn(heartbeat_impl, std::move(cfg), std::move(links));
}

} // namespace nb
