#include "actors/channels/napcat/napcat_channel.hpp"

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/napcat/napcat_link.hpp"
#include "actors/channels/napcat/napcat_sender.hpp"

namespace nb::napcat {

channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager) {
  std::string raw = "{}";
  if (auto it = cfg.channels.find(name); it != cfg.channels.end())
    raw = it->second.raw_json;
  chan::adapter_spec spec;
  spec.name = name;
  spec.manager = std::move(manager);
  auto nc = parse_napcat_config(name, raw, cfg.config_dir() + "/media",
                                spec.config_error);
  // The sender's actions travel on the link's socket.
  auto line = std::make_shared<action_line>();
  spec.make_sender = [nc, line](caf::actor_system& s) {
    return spawn_sender(s, nc, line);
  };
  spec.make_loop = [nc, line](chan::adapter_front_actor front) {
    return start_link(nc, line, std::move(front));
  };
  return chan::spawn_adapter(sys, std::move(spec));
}

} // namespace nb::napcat
