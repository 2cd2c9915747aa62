#include "actors/channels/slack/slack_channel.hpp"

#include "actors/channels/slack/slack_socket.hpp"
#include "actors/channels/slack/slack_sender.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::slack {

channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager) {
  std::string raw = "{}";
  if (auto it = cfg.channels.find(name); it != cfg.channels.end())
    raw = it->second.raw_json;
  chan::adapter_spec spec;
  spec.name = name;
  spec.manager = std::move(manager);
  auto sc = parse_slack_config(name, raw, spec.config_error);
  spec.make_sender = [sc](caf::actor_system& s) { return spawn_sender(s, sc); };
  spec.make_loop = [sc](chan::adapter_front_actor front) {
    return start_socket(sc, std::move(front));
  };
  return chan::spawn_adapter(sys, std::move(spec));
}

} // namespace nb::slack
