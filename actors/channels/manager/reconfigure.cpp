// One channel changed in a running gateway (the WebUI's settings): the new
// channels.<name> is checked like at start-up, then only that channel's
// adapter is stopped and, once it is down (its port or platform session
// free), started again. The other channels never notice.
#include "actors/channels/manager/adapters.hpp"
#include "actors/channels/manager/manager.hpp"
#include "actors/common/log.hpp"
#include "config/load.hpp"

#include <nlohmann/json.hpp>

namespace nb {

namespace {

void start_if_enabled(channel_manager_pointer self, const std::string& name) {
  auto& st = self->state;
  auto& slot = st.channels[name];
  auto cfg = st.cfg.channels.find(name);
  slot.status.name = name;
  slot.status.detail.clear();
  if (cfg == st.cfg.channels.end() || !cfg->second.enabled) {
    slot.status.state = "disabled";
    return;
  }
  start_one(self, name);
}

/// Stops the channel's adapter; it starts again, with the manager's
/// settings then, once it is down (on_adapter_down).
void restart_adapter(channel_manager_pointer self, const std::string& name) {
  auto& st = self->state;
  auto& slot = st.channels[name];
  auto old = slot.adapter;
  slot.adapter = nullptr;
  slot.status.state = "restarting";
  slot.status.detail.clear();
  self->unlink_from(old);
  self->monitor(old);
  st.stopping.emplace(old.address(), name);
  self->send_exit(old, caf::exit_reason::user_shutdown);
}

} // namespace

std::string reconfigure_channel(channel_manager_pointer self,
                                const std::string& name,
                                const std::string& config_json, bool dry_run) {
  auto& st = self->state;
  auto loaded = parse_settings(config_json, st.cfg.config_path);
  if (auto* e = std::get_if<config_error>(&loaded))
    return e->message();
  const auto& fresh = std::get<loaded_settings>(loaded).value;
  auto next = st.cfg;
  auto found = fresh.channels.find(name);
  if (found == fresh.channels.end())
    next.channels.erase(name);
  else
    next.channels[name] = found->second;
  channel_options opts;
  if (found != fresh.channels.end() && found->second.enabled) {
    auto parsed = parse_channel_options(next, name);
    if (auto* err = std::get_if<std::string>(&parsed))
      return *err;
    opts = std::get<channel_options>(std::move(parsed));
    const auto* adapter = find_adapter_entry(opts.kind);
    if (!adapter)
      return "config error at channels." + name
                    + ".type: no channel adapter named \"" + opts.kind
                    + "\" in this build";
    // The adapter's own keys, read as it reads them when it starts: a
    // missing token is refused here, not found in its status later.
    if (adapter->check)
      if (auto why = adapter->check(next, name); !why.empty())
        return "config error at " + why;
  }
  if (dry_run)
    return {};
  st.cfg.channels = std::move(next.channels);
  auto& slot = st.channels[name];
  slot.opts = std::move(opts);
  slot.gave_up = 0;
  log::get("channels")->info("channel {} reconfigured: restarting it", name);
  if (!slot.adapter) {
    bool waiting = false;
    for (auto& [_, n] : st.stopping)
      waiting = waiting || n == name;
    if (!waiting) // else it starts with these settings once down
      start_if_enabled(self, name);
    return {};
  }
  restart_adapter(self, name);
  return {};
}

void retool_channels(channel_manager_pointer self,
                     const std::string& config_json) {
  auto& st = self->state;
  auto loaded = parse_settings(config_json, st.cfg.config_path);
  if (auto* e = std::get_if<config_error>(&loaded)) {
    log::get("channels")->warn("tools change not taken: {}", e->message());
    return;
  }
  const auto& fresh = std::get<loaded_settings>(loaded).value.tools;
  if (fresh.ssrf_whitelist == st.cfg.tools.ssrf_whitelist)
    return;
  st.cfg.tools.ssrf_whitelist = fresh.ssrf_whitelist;
  for (auto& [name, slot] : st.channels) {
    const auto* entry = find_adapter_entry(slot.opts.kind);
    if (!slot.adapter || !entry || !entry->fetches_links)
      continue; // one stopping starts again with the new whitelist
    log::get("channels")->info(
      "tools.ssrfWhitelist changed: restarting channel {}", name);
    restart_adapter(self, name);
  }
}

std::string channel_kinds_json() {
  auto out = nlohmann::json::array();
  for (const auto& entry : adapter_table()) {
    auto required = nlohmann::json::array();
    for (auto key : entry.required)
      required.push_back(std::string{key});
    out.push_back({{"type", std::string{entry.name}}, {"required", required}});
  }
  return out.dump();
}

void on_adapter_down(channel_manager_pointer self, const caf::down_msg& dm) {
  auto& st = self->state;
  auto i = st.stopping.find(dm.source);
  if (i == st.stopping.end())
    return;
  auto name = i->second;
  st.stopping.erase(i);
  start_if_enabled(self, name);
}

} // namespace nb
