#include "actors/channels/email/email_channel.hpp"

#include "actors/channels/email/email_poller.hpp"
#include "actors/channels/email/email_sender.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::email {

channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager) {
  std::string raw = "{}";
  if (auto it = cfg.channels.find(name); it != cfg.channels.end())
    raw = it->second.raw_json;
  chan::adapter_spec spec;
  spec.name = name;
  spec.manager = std::move(manager);
  auto ec = parse_email_config(name, raw, spec.config_error);
  spec.make_sender = [ec](caf::actor_system& s) { return spawn_sender(s, ec); };
  spec.make_loop = [ec](chan::adapter_front_actor front) {
    return start_poller(ec, std::move(front));
  };
  return chan::spawn_adapter(sys, std::move(spec));
}

} // namespace nb::email
