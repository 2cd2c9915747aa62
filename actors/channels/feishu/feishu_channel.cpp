#include "actors/channels/feishu/feishu_channel.hpp"

#include "actors/channels/feishu/feishu_sender.hpp"
#include "actors/channels/feishu/feishu_socket.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::feishu {

channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager) {
  std::string raw = "{}";
  if (auto it = cfg.channels.find(name); it != cfg.channels.end())
    raw = it->second.raw_json;
  chan::adapter_spec spec;
  spec.name = name;
  spec.manager = std::move(manager);
  auto fc = parse_feishu_config(name, raw, cfg.config_dir() + "/media",
                                spec.config_error);
  spec.make_sender = [fc](caf::actor_system& s) { return spawn_sender(s, fc); };
  spec.make_loop = [fc](chan::adapter_front_actor front) {
    return start_socket(fc, std::move(front));
  };
  return chan::spawn_adapter(sys, std::move(spec));
}

} // namespace nb::feishu
