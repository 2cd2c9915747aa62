#include "actors/channels/mochat/mochat_channel.hpp"

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/mochat/mochat_sender.hpp"
#include "actors/channels/mochat/mochat_watch.hpp"

namespace nb::mochat {

channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager) {
  std::string raw = "{}";
  if (auto it = cfg.channels.find(name); it != cfg.channels.end())
    raw = it->second.raw_json;
  chan::adapter_spec spec;
  spec.name = name;
  spec.manager = std::move(manager);
  auto mc = parse_mochat_config(name, raw, spec.config_error);
  // Where the original keeps its cursors (<data dir>/mochat/), so a move
  // from it resumes where it stopped.
  auto cursor_file = cfg.config_dir() + "/" + name + "/session_cursors.json";
  spec.make_sender = [mc](caf::actor_system& s) { return spawn_sender(s, mc); };
  spec.make_loop = [mc, cursor_file](chan::adapter_front_actor front) {
    return start_watch(mc, cursor_file, std::move(front));
  };
  return chan::spawn_adapter(sys, std::move(spec));
}

} // namespace nb::mochat
