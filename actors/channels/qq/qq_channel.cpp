#include "actors/channels/qq/qq_channel.hpp"

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/qq/qq_gateway.hpp"
#include "actors/channels/qq/qq_sender.hpp"

namespace nb::qq {

channel_actor make_channel(caf::actor_system& sys, const settings& cfg,
                           const std::string& name,
                           channel_manager_actor manager) {
  std::string raw = "{}";
  if (auto it = cfg.channels.find(name); it != cfg.channels.end())
    raw = it->second.raw_json;
  chan::adapter_spec spec;
  spec.name = name;
  spec.manager = std::move(manager);
  auto qc = parse_qq_config(name, raw, cfg.config_dir() + "/media",
                            spec.config_error);
  qc.ssrf_whitelist = cfg.tools.ssrf_whitelist;
  qc.groups_file = cfg.config_dir() + "/qq/" + name + "-groups.json";
  spec.make_sender = [qc](caf::actor_system& s) { return spawn_sender(s, qc); };
  // The sender numbers its replies to a message (msg_seq) for as long as
  // that message can be answered: a new sender would number them again.
  spec.min_sender_idle = std::chrono::minutes(6);
  spec.make_loop = [qc](chan::adapter_front_actor front) {
    return start_gateway(qc, std::move(front));
  };
  return chan::spawn_adapter(sys, std::move(spec));
}

} // namespace nb::qq
