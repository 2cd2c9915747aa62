#include "actors/channels/manager/manager.hpp"

#include <caf/event_based_actor.hpp>

#include "actors/channels/manager/adapters.hpp"
#include "actors/common/log.hpp"

namespace nb {

namespace {

constexpr auto status_timeout = std::chrono::seconds(5);

channel_status plain_status(const std::string& name, std::string state,
                            std::string detail) {
  channel_status out;
  out.name = name;
  out.state = std::move(state);
  out.detail = std::move(detail);
  return out;
}

/// Spawns every enabled channel that has an adapter; the rest get a status
/// that says why they do not run.
void start_channels(channel_manager_pointer self) {
  auto& st = self->state;
  auto lg = log::get("channels");
  for (const auto& [name, ch] : st.cfg.channels) {
    auto& slot = st.channels[name];
    if (!ch.enabled) {
      slot.status = plain_status(name, "disabled", "");
      continue;
    }
    auto make = find_adapter(name);
    if (make == nullptr) {
      slot.status = plain_status(name, "error",
                                 "no channel adapter named \"" + name
                                   + "\" in this build");
      lg->warn("channels.{}: {}", name, slot.status.detail);
      continue;
    }
    slot.adapter = make(self->system(), st.cfg, name, self);
    if (!slot.adapter) {
      slot.status = plain_status(name, "error", "the adapter did not start");
      continue;
    }
    self->link_to(slot.adapter);
    slot.status = plain_status(name, "connecting", "");
    lg->info("channel {} started", name);
  }
}

/// Asks every running adapter for its status and answers the whole list.
caf::result<std::vector<channel_status>>
collect_status(channel_manager_pointer self) {
  auto rp = self->make_response_promise<std::vector<channel_status>>();
  auto out = std::make_shared<std::vector<channel_status>>();
  auto pending = std::make_shared<size_t>(self->state.channels.size());
  auto finish = [rp, out, pending]() mutable {
    if (--*pending == 0)
      rp.deliver(std::move(*out));
  };
  if (*pending == 0)
    rp.deliver(std::vector<channel_status>{});
  for (auto& [name, slot] : self->state.channels) {
    if (!slot.adapter) {
      out->push_back(slot.status);
      finish();
      continue;
    }
    auto key = name;
    self->request(slot.adapter, status_timeout, channel_status_atom::value)
      .then(
        [self, out, finish, key](channel_status& s) mutable {
          self->state.channels[key].status = s;
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
  return rp;
}

} // namespace

channel_manager_actor::behavior_type
channel_manager_impl(channel_manager_pointer self, settings cfg,
                     router_actor router, stats_actor stats) {
  self->state.cfg = std::move(cfg);
  self->state.router = std::move(router);
  self->state.meter.start(self, "channel_manager", stats);
  start_channels(self);
  return {
    [self](outbound_msg& msg) {
      auto t = self->state.meter.measure();
      auto i = self->state.channels.find(msg.channel);
      if (i == self->state.channels.end() || !i->second.adapter) {
        log::get("channels")->warn("no running channel {} for chat {}; "
                                   "dropping a {} message",
                                   msg.channel, msg.chat_id,
                                   to_string(msg.kind));
        return;
      }
      self->request(i->second.adapter, std::chrono::seconds(60),
                    std::move(msg))
        .then([](caf::ok_atom) {}, [](caf::error&) {});
    },
    [self](inbound_msg& msg) {
      auto t = self->state.meter.measure();
      if (self->state.router)
        self->send(self->state.router, std::move(msg));
    },
    [self](channel_status_atom) -> caf::result<std::vector<channel_status>> {
      auto t = self->state.meter.measure();
      return collect_status(self);
    },
  };
}

channel_manager_actor spawn_channel_manager(caf::actor_system& sys,
                                            const settings& cfg,
                                            router_actor router,
                                            stats_actor stats) {
  return sys.spawn(channel_manager_impl, cfg, std::move(router),
                   std::move(stats));
}

} // namespace nb
