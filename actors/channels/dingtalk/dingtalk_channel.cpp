#include "actors/channels/dingtalk/dingtalk_channel.hpp"

#include "actors/channels/dingtalk/dingtalk_sender.hpp"
#include "actors/channels/dingtalk/dingtalk_stream.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::dingtalk {

channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager) {
  std::string raw = "{}";
  if (auto it = cfg.channels.find(name); it != cfg.channels.end())
    raw = it->second.raw_json;
  chan::adapter_spec spec;
  spec.name = name;
  spec.manager = std::move(manager);
  auto dc = parse_dingtalk_config(name, raw, cfg.config_dir() + "/media",
                                  spec.config_error);
  dc.ssrf_whitelist = cfg.tools.ssrf_whitelist;
  spec.make_sender = [dc](caf::actor_system& s) { return spawn_sender(s, dc); };
  spec.make_loop = [dc](chan::adapter_front_actor front) {
    return start_stream(dc, std::move(front));
  };
  return chan::spawn_adapter(sys, std::move(spec));
}

} // namespace nb::dingtalk
