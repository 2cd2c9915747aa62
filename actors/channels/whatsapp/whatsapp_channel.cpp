#include "actors/channels/whatsapp/whatsapp_channel.hpp"

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/whatsapp/bridge_link.hpp"
#include "actors/channels/whatsapp/cloud_webhook.hpp"
#include "actors/channels/whatsapp/whatsapp_sender.hpp"

namespace nb::whatsapp {

channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager) {
  std::string raw = "{}";
  if (auto it = cfg.channels.find(name); it != cfg.channels.end())
    raw = it->second.raw_json;
  chan::adapter_spec spec;
  spec.name = name;
  spec.manager = std::move(manager);
  auto wc = parse_whatsapp_config(name, raw, cfg.config_dir(),
                                  spec.config_error);
  // Bridge mode: one connection carries both directions; the sender hands
  // its commands to the connection's thread through this.
  auto outbox = std::make_shared<bridge_outbox>();
  spec.make_sender = [wc, outbox](caf::actor_system& s) {
    return spawn_sender(s, wc, outbox);
  };
  spec.make_loop = [wc, outbox](chan::adapter_front_actor front) {
    return wc.mode == wa_mode::cloud
             ? start_webhook(wc, std::move(front))
             : start_bridge(wc, outbox, std::move(front));
  };
  return chan::spawn_adapter(sys, std::move(spec));
}

} // namespace nb::whatsapp
