// The channel actor around ws::server: outbound messages become events for
// the browsers attached to the chat; ok is answered only after at least one
// connection wrote every frame, so the manager retries (and never repeats)
// when no browser is there.
#include "actors/channels/websocket/ws_channel.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>

#include <caf/actor_registry.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <nlohmann/json.hpp>

#include "actors/agents/agent_route.hpp"
#include "actors/session/goal_state.hpp"
#include "messages/goal.hpp"
#include "messages/session_admin.hpp"
#include "actors/channels/websocket/ws_api_routes.hpp"
#include "actors/channels/websocket/ws_api_runner.hpp"
#include "actors/channels/websocket/ws_config.hpp"
#include "actors/channels/websocket/ws_protocol.hpp"
#include "actors/channels/websocket/ws_server.hpp"
#include "actors/common/blocking_task.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/tools/cli_app_mentions.hpp"

namespace nb {

namespace {

using ws_written_atom = caf::atom_constant<caf::atom("wswritten")>;
using ws_attached_atom = caf::atom_constant<caf::atom("wsattach")>;

using ws_channel_full = channel_actor::extend<
  caf::reacts_to<ws_written_atom, uint64_t, uint64_t>,
  caf::reacts_to<ws_attached_atom, std::string, std::string, std::string>,
  caf::reacts_to<api_call>>;

struct ws_channel_state {
  ws_channel_state() = default;
  static inline const char* name = "websocket_channel";

  /// Handed to the task that stops it when the channel exits.
  std::shared_ptr<ws::server> server;
  ws::api_runner_actor api; ///< runs the WebUI's API calls
  std::map<uint64_t, caf::typed_response_promise<caf::ok_atom>> pending;
  std::map<uint64_t, std::string> pending_chat;
  uint64_t next_id = 1;
  /// Each session's goal_status "running" event while its turn runs (until
  /// the "idle" one), by session key (agent, channel and chat, as the
  /// router keys sessions): a browser attaching meanwhile to that chat of
  /// that agent gets it again, one attaching to the same chat id under
  /// another agent does not.
  std::map<std::string, outbound_msg> running;
  std::string channel_name; ///< channels.<name>: the sessions' key prefix
  std::string kind; ///< channels.<name>.type, else the name (as the manager)
  /// agents.bindings: which agent's session a chat a browser attaches to
  /// is, chosen as the manager chooses it for the chat's messages.
  std::vector<agent_binding> bindings;
  channel_status status;
  std::shared_ptr<std::atomic<int64_t>> received
    = std::make_shared<std::atomic<int64_t>>(0);
};

using ws_pointer = ws_channel_full::stateful_pointer<ws_channel_state>;

ws::server_hooks make_hooks(ws_pointer self, const ws::channel_config& c,
                            const std::string& name,
                            channel_manager_actor manager) {
  ws::server_hooks h;
  auto me = caf::actor_cast<ws_channel_full>(self);
  auto received = self->state.received;
  bool streaming = c.streaming;
  h.on_message = [manager, name, streaming, received](
                   const std::string& client, const std::string& chat,
                   const std::string& text, const std::string& agent,
                   const std::string& cli_apps) {
    ++*received;
    inbound_msg in;
    in.channel = name;
    in.sender_id = client;
    in.chat_id = chat;
    in.content = text;
    in.wants_stream = streaming;
    nlohmann::json meta = nlohmann::json::object();
    if (!agent.empty()) // checked against the bindings by the manager
      meta["_agent_request"] = agent;
    if (ws::temporary_chat_id(chat)) // see ws_protocol.hpp
      meta[temporary_meta_key] = true;
    if (!cli_apps.empty()) // normalized by the protocol
      meta[cli_apps_meta_key] = nlohmann::json::parse(cli_apps, nullptr, false);
    if (!meta.empty())
      in.metadata_json = meta.dump();
    caf::anon_send(manager, std::move(in));
  };
  h.on_written = [me](uint64_t id, size_t delivered) {
    caf::anon_send(me, ws_written_atom::value, id,
                   static_cast<uint64_t>(delivered));
  };
  auto allow = c.allow_from;
  h.allowed = [allow](const std::string& client) {
    for (const auto& a : allow)
      if (a == "*" || a == client)
        return true;
    return false;
  };
  h.api = [me](api_call call) { caf::anon_send(me, std::move(call)); };
  h.on_attached = [me](const std::string& client, const std::string& chat,
                       const std::string& agent) {
    caf::anon_send(me, ws_attached_atom::value, client, chat, agent);
  };
  return h;
}

/// Stopping the server joins its io thread (up to its grace time for
/// clients that do not read): on an exit (the gateway stopping, the manager
/// restarting the channel) that is done on a thread of its own, never on
/// the scheduler's, and the channel ends only once it is done: the manager
/// starts the next one on the same port when this one is down. Any other
/// end drops the last reference in the state, which stops the server where
/// it ends.
/// The session a goal event comes from (sessions always stamp it; the
/// channel's own key for the chat otherwise).
std::string ws_run_state_key(const outbound_msg& msg) {
  return msg.session_key.empty() ? msg.channel + ":" + msg.chat_id
                                 : msg.session_key;
}

/// Remembers or forgets `msg`, a goal event, as its session's running turn.
void note_run_state(ws_pointer self, const outbound_msg& msg) {
  if (msg.metadata_json.find("\"_goal_status\":true") == std::string::npos)
    return;
  auto meta = nlohmann::json::parse(msg.metadata_json, nullptr, false);
  if (meta.is_object() && meta.value("goal_status", "") == "running")
    self->state.running[ws_run_state_key(msg)] = msg;
  else
    self->state.running.erase(ws_run_state_key(msg));
}

/// A browser attached to `chat`: as the original, the stored goal (when
/// active or blocked) goes to it as goal_state, then the running turn's
/// goal_status. The goal is read by the router from the session file
/// (never here: this thread does no I/O), in the session of the agent the
/// chat's messages go to (`client` and `agent` as they connected).
void replay_goal(ws_pointer self, const std::string& client,
                 const std::string& chat, const std::string& agent) {
  auto send_events = [self, chat](std::vector<std::string> frames) {
    auto& st = self->state;
    if (st.server && !frames.empty())
      st.server->deliver(st.next_id++, chat, std::move(frames));
  };
  auto& st = self->state;
  inbound_msg in;
  in.channel = st.channel_name;
  in.chat_id = chat;
  in.sender_id = client;
  if (!st.bindings.empty())
    set_agent(in, choose_agent(st.bindings,
                               {st.kind, st.channel_name, chat, client, false},
                               agent));
  auto key = routed_session_key(in);
  auto running = [self, key, send_events] {
    auto& st = self->state;
    if (auto i = st.running.find(key); i != st.running.end())
      send_events(ws::events_for(i->second));
  };
  auto router = caf::actor_cast<sessions_actor>(
    self->system().registry().get(sessions_atom::value));
  if (!router) {
    running();
    return;
  }
  timed_request(self, router, std::chrono::seconds(10), session_load{key})
    .then(
      [send_events, running, chat](session_snapshot& snap) {
        auto meta = nlohmann::json::parse(snap.metadata_json, nullptr, false);
        auto blob = goal::ws_blob(meta.is_object() ? meta
                                                   : nlohmann::json::object());
        if (blob.value("active", false) || blob.value("status", "") == "blocked")
          send_events({nlohmann::json{{"event", "goal_state"},
                                      {"chat_id", chat},
                                      {"goal_state", blob}}
                         .dump(-1, ' ', false,
                               nlohmann::json::error_handler_t::replace)});
        running();
      },
      [running](caf::error&) { running(); });
}

void stop_on_exit(ws_pointer self) {
  self->set_exit_handler([self](caf::exit_msg& msg) {
    if (!msg.reason) // a linked actor that ended normally: as CAF's default
      return;
    auto server = std::move(self->state.server);
    if (!server) { // stopping already, or never started
      self->quit(msg.reason);
      return;
    }
    self->state.status.state = "stopping";
    self->state.status.detail = "the channel is stopping";
    auto done = [self, reason = msg.reason](auto&&...) { self->quit(reason); };
    timed_request(self, blocking_task(self, "nb.ws-stop", [server] {
                    server->stop();
                    return true;
                  }),
                  std::chrono::seconds(10), caf::get_atom::value)
      .then([done](bool) { done(); }, [done](caf::error&) { done(); });
  });
}

ws_channel_full::behavior_type ws_channel_impl(ws_pointer self,
                                               settings cfg, std::string name,
                                               channel_manager_actor manager) {
  auto& st = self->state;
  st.status.name = name;
  st.channel_name = name;
  st.kind = name;
  if (auto i = cfg.channels.find(name); i != cfg.channels.end()) {
    auto raw = nlohmann::json::parse(i->second.raw_json, nullptr, false);
    if (raw.is_object() && raw.contains("type") && raw["type"].is_string())
      st.kind = raw["type"].get<std::string>();
  }
  st.bindings = cfg.bindings;
  auto parsed = ws::parse_channel_config(cfg, name);
  if (auto* err = std::get_if<std::string>(&parsed)) {
    st.status.state = "error";
    st.status.detail = *err;
    log::get("channels")->error("{}", *err);
  } else {
    auto& c = std::get<ws::channel_config>(parsed);
    for (const auto& b : cfg.bindings)
      if ((b.channel == "websocket" || b.channel == name)
          && std::find(c.server.agents.begin(), c.server.agents.end(),
                       b.agent)
               == c.server.agents.end())
        c.server.agents.push_back(b.agent);
    try {
      // Binding and listening do not wait on anything: done here, so the
      // WebUI is up by the time the gateway says it is ready.
      st.api = ws::spawn_api_runner(
        self->system(),
        ws::make_api_function(self->system(), c, name, cfg.config_path,
                          ws::control_agents_of(cfg), manager));
      self->link_to(st.api);
      st.server = std::make_shared<ws::server>(
        c.server, make_hooks(self, c, name, manager));
      stop_on_exit(self);
      st.status.state = "connected";
      st.status.detail = "ws://" + c.server.host + ":"
                         + std::to_string(st.server->port()) + c.server.path;
      log::get("channels")->info("WebSocket channel and WebUI on http://{}:{}",
                                 c.server.host, st.server->port());
    } catch (const std::exception& e) {
      st.status.state = "error";
      st.status.detail = e.what();
      log::get("channels")->error("channels.{}: {}", name, e.what());
    }
  }
  return {
    guard("channels", [self](outbound_msg& msg) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      if (!st.server)
        return caf::make_error(caf::sec::runtime_error, st.status.detail);
      auto frames = ws::events_for(msg);
      if (frames.empty())
        return caf::ok_atom::value;
      if (is_goal_event(msg)) {
        // A hint for whoever watches (goal strip, run state): a chat
        // nobody has open is no failure; a browser attaching later gets
        // the run state again (replay_goal).
        note_run_state(self, msg);
        st.server->deliver(st.next_id++, msg.chat_id, std::move(frames));
        return caf::ok_atom::value;
      }
      auto id = st.next_id++;
      auto rp = self->make_response_promise<caf::ok_atom>();
      st.pending.emplace(id, rp);
      st.pending_chat.emplace(id, msg.chat_id);
      st.server->deliver(id, msg.chat_id, std::move(frames));
      return rp;
    }),
    [self](ws_written_atom, uint64_t id, uint64_t delivered) {
      auto& st = self->state;
      auto i = st.pending.find(id);
      if (i == st.pending.end())
        return;
      auto rp = i->second;
      auto chat = st.pending_chat[id];
      st.pending.erase(i);
      st.pending_chat.erase(id);
      if (delivered > 0) {
        ++st.status.sent;
        rp.deliver(caf::ok_atom::value);
      } else {
        ++st.status.failed;
        rp.deliver(caf::make_error(caf::sec::runtime_error,
                                   "no browser is attached to chat "
                                     + chat));
      }
    },
    guard("channels",
          [self](api_call& call) {
            auto id = call.id;
            auto answer = [self, id](api_reply reply) {
              if (self->state.server) // else the channel is stopping
                self->state.server->answer_api(id, std::move(reply));
            };
            // The runner answers every call (its own time limit included).
            self->request(self->state.api, caf::infinite, std::move(call))
              .then([answer](api_reply& reply) { answer(std::move(reply)); },
                    [self, answer](caf::error& err) {
                      answer({500, nlohmann::json{{"detail",
                                                   self->system().render(err)}}
                                     .dump()});
                    });
          }),
    guard("channels",
          [self](ws_attached_atom, const std::string& client,
                 const std::string& chat, const std::string& agent) {
            replay_goal(self, client, chat, agent);
          }),
    [self](channel_status_atom) -> channel_status {
      auto s = self->state.status;
      s.received = self->state.received->load();
      if (self->state.server)
        s.detail += " (" + std::to_string(self->state.server->connections())
                    + " connected)";
      return s;
    },
  };
}

} // namespace

channel_actor make_websocket_channel(caf::actor_system& sys,
                                     const settings& cfg,
                                     const std::string& name,
                                     channel_manager_actor manager) {
  // On the scheduler: the server runs on its own io thread and every
  // handler here only posts to it.
  auto full = sys.spawn(ws_channel_impl, cfg, name, std::move(manager));
  return caf::actor_cast<channel_actor>(full);
}

} // namespace nb
