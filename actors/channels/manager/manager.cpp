// The manager's life cycle: starting adapters, restarting one that dies,
// answering status, and wiring the three inputs to dispatch and inbound.
#include "actors/channels/manager/manager.hpp"

#include <caf/event_based_actor.hpp>

#include "actors/channels/manager/adapters.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/timed_request.hpp"

namespace nb {

namespace {

constexpr auto status_timeout = std::chrono::seconds(5);
constexpr auto restart_delay = std::chrono::seconds(5);

channel_status plain_status(const std::string& name, std::string state,
                            std::string detail) {
  channel_status out;
  out.name = name;
  out.state = std::move(state);
  out.detail = std::move(detail);
  return out;
}

/// Every configured channel gets a slot; enabled ones with valid options
/// and an adapter are spawned.
void start_channels(channel_manager_pointer self) {
  auto& st = self->state;
  for (const auto& [name, ch] : st.cfg.channels) {
    auto& slot = st.channels[name];
    if (!ch.enabled) {
      slot.status = plain_status(name, "disabled", "");
      continue;
    }
    auto opts = parse_channel_options(st.cfg, name);
    if (auto* err = std::get_if<std::string>(&opts)) {
      slot.status = plain_status(name, "error", *err);
      log::get("channels")->error("{}", *err);
      continue;
    }
    slot.opts = std::get<channel_options>(std::move(opts));
    start_one(self, name);
  }
}

/// Asks every running adapter for its status and answers the whole list.
caf::result<std::vector<channel_status>>
collect_status(channel_manager_pointer self) {
  auto rp = self->make_response_promise<std::vector<channel_status>>();
  auto out = std::make_shared<std::vector<channel_status>>();
  auto pending = std::make_shared<size_t>(self->state.channels.size() + 1);
  auto finish = [rp, out, pending]() mutable {
    if (--*pending == 0)
      rp.deliver(std::move(*out));
  };
  for (auto& [name, slot] : self->state.channels) {
    if (!slot.adapter) {
      out->push_back(slot.status);
      finish();
      continue;
    }
    auto key = name;
    timed_request(self, slot.adapter, status_timeout,
                  channel_status_atom::value)
      .then(
        [self, out, finish, key](channel_status& s) mutable {
          auto& slot = self->state.channels[key];
          s.failed += slot.gave_up;
          slot.status = s;
          out->push_back(std::move(s));
          finish();
        },
        [self, out, finish, key](caf::error& err) mutable {
          out->push_back(plain_status(key, "error",
                                      "no status: "
                                        + self->system().render(err)));
          finish();
        });
  }
  finish(); // the extra count: delivers at once when nothing is pending
  return rp;
}

/// An adapter died: its slot shows why and it is started again shortly.
/// Anything else linked to us going down means shutdown.
void on_exit(channel_manager_pointer self, caf::exit_msg& em) {
  for (auto& [name, slot] : self->state.channels) {
    if (!slot.adapter || slot.adapter.address() != em.source)
      continue;
    slot.adapter = nullptr;
    slot.status = plain_status(name, "error", "stopped: "
                                                + self->system().render(em.reason)
                                                + "; restarting");
    log::get("channels")->error("channel {} {}", name, slot.status.detail);
    self->delayed_send(self, restart_delay, restart_channel_atom::value, name);
    return;
  }
  self->quit(em.reason);
}

} // namespace

void start_one(channel_manager_pointer self, const std::string& name) {
  auto& slot = self->state.channels[name];
  auto make = find_adapter(slot.opts.kind);
  if (make == nullptr) {
    slot.status = plain_status(name, "error", "no channel adapter named \""
                                                + slot.opts.kind
                                                + "\" in this build");
    log::get("channels")->warn("channels.{}: {}", name, slot.status.detail);
    return;
  }
  slot.adapter = make(self->system(), self->state.cfg, name,
                      caf::actor_cast<channel_manager_actor>(self));
  if (!slot.adapter) {
    slot.status = plain_status(name, "error", "the adapter did not start");
    return;
  }
  self->link_to(slot.adapter);
  slot.status = plain_status(name, "connecting", "");
  log::get("channels")->info("channel {} started", name);
}

channel_manager_full::behavior_type
channel_manager_impl(channel_manager_pointer self, settings cfg,
                     router_actor router, stats_actor stats,
                     inbox_actor inbox) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.router = std::move(router);
  st.inbox = std::move(inbox);
  st.meter.start(self, "channel_manager", stats);
  self->set_exit_handler([self](caf::exit_msg& em) { on_exit(self, em); });
  self->set_down_handler(
    [self](caf::down_msg& dm) { on_adapter_down(self, dm); });
  load_pairing(self, [self] { start_channels(self); });
  return {
    guard("channels",
          [self](outbound_msg& msg) {
            auto t = self->state.meter.measure();
            enqueue_outbound(self, std::move(msg));
          }),
    guard("channels",
          [self](inbound_msg& msg) {
            auto t = self->state.meter.measure();
            handle_inbound(self, std::move(msg));
          }),
    guard("channels",
          [self](inbox_record& rec) -> caf::result<inbox_receipt> {
            auto t = self->state.meter.measure();
            return record_inbound(self, std::move(rec.msg));
          }),
    guard(
      "channels",
      [self](channel_status_atom) -> caf::result<std::vector<channel_status>> {
        auto t = self->state.meter.measure();
        return collect_status(self);
      }),
    guard("channels",
          [self](channel_reconfigure_atom, const std::string& name,
                 const std::string& config_json, bool dry_run) -> std::string {
            auto t = self->state.meter.measure();
            return reconfigure_channel(self, name, config_json, dry_run);
          }),
    [](channel_kinds_atom) -> std::string { return channel_kinds_json(); },
    guard("channels",
          [self](channel_tools_atom, const std::string& config_json) {
            auto t = self->state.meter.measure();
            retool_channels(self, config_json);
          }),
    guard("channels",
          [self](retry_send_atom, const std::string& key, int32_t attempt) {
            auto t = self->state.meter.measure();
            send_front(self, key, attempt);
          }),
    guard("channels",
          [self](restart_channel_atom, const std::string& name) {
            auto t = self->state.meter.measure();
            auto& st = self->state;
            auto& slot = st.channels[name];
            auto cfg = st.cfg.channels.find(name);
            bool waiting = false; // a reconfiguration starts it
            for (auto& [_, n] : st.stopping)
              waiting = waiting || n == name;
            if (!slot.adapter && !waiting && cfg != st.cfg.channels.end()
                && cfg->second.enabled)
              start_one(self, name);
          }),
  };
}

channel_manager_actor spawn_channel_manager(caf::actor_system& sys,
                                            const settings& cfg,
                                            router_actor router,
                                            stats_actor stats,
                                            inbox_actor inbox) {
  auto full = sys.spawn(channel_manager_impl, cfg, std::move(router),
                        std::move(stats), std::move(inbox));
  return caf::actor_cast<channel_manager_actor>(full);
}

} // namespace nb
