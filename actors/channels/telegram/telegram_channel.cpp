#include "actors/channels/telegram/telegram_channel.hpp"

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/telegram/telegram_poller.hpp"
#include "actors/channels/telegram/telegram_sender.hpp"

namespace nb::telegram {

channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager) {
  std::string raw = "{}";
  if (auto it = cfg.channels.find(name); it != cfg.channels.end())
    raw = it->second.raw_json;
  chan::adapter_spec spec;
  spec.name = name;
  spec.manager = std::move(manager);
  auto tc = parse_telegram_config(name, raw, cfg.config_dir() + "/media",
                                  spec.config_error);
  spec.make_sender = [tc](caf::actor_system& s) { return spawn_sender(s, tc); };
  spec.make_loop = [tc](chan::adapter_front_actor front) {
    return start_poller(tc, std::move(front));
  };
  return chan::spawn_adapter(sys, std::move(spec));
}

} // namespace nb::telegram
