#include "actors/channels/matrix/matrix_channel.hpp"

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/matrix/matrix_poller.hpp"
#include "actors/channels/matrix/matrix_sender.hpp"

namespace nb::matrix {

channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager) {
  std::string raw = "{}";
  if (auto it = cfg.channels.find(name); it != cfg.channels.end())
    raw = it->second.raw_json;
  chan::adapter_spec spec;
  spec.name = name;
  spec.manager = std::move(manager);
  auto mc = parse_matrix_config(name, raw, spec.config_error);
  auto state_file = cfg.config_dir() + "/channels/" + name + ".sync";
  spec.make_sender = [mc](caf::actor_system& s) { return spawn_sender(s, mc); };
  // Each password login is a new device on the homeserver: one sender keeps
  // its login for the adapter's life.
  spec.keep_sender = mc.access_token.empty();
  spec.make_loop = [mc, state_file](chan::adapter_front_actor front) {
    return start_poller(mc, state_file, std::move(front));
  };
  return chan::spawn_adapter(sys, std::move(spec));
}

} // namespace nb::matrix
