// `nanobot channels status`: the configured channels and, when the gateway
// runs, each one's live state from its GET /channels.
#include <iomanip>
#include <iostream>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "actors/app/commands.hpp"
#include "actors/app/load_config.hpp"
#include "actors/channels/manager/adapters.hpp"

namespace nb {

namespace {

using nlohmann::json;

void row(const std::string& name, const std::string& state,
         const std::string& counts, const std::string& detail) {
  std::cout << std::left << std::setw(12) << name << std::setw(14) << state
            << std::setw(18) << counts << detail << "\n";
}

/// The gateway's answer, or nullopt with `why` when it does not answer.
std::optional<json> live_states(const settings& cfg, std::string& why) {
  httplib::Client cli{cfg.gateway.host, cfg.gateway.port};
  cli.set_connection_timeout(std::chrono::seconds(2));
  cli.set_read_timeout(std::chrono::seconds(8));
  auto res = cli.Get("/channels");
  if (!res) {
    why = "no gateway answers on " + cfg.gateway.host + ":"
          + std::to_string(cfg.gateway.port);
    return std::nullopt;
  }
  auto doc = json::parse(res->body, nullptr, false);
  if (res->status != 200 || !doc.is_object()
      || !doc.value("channels", json()).is_array()) {
    why = "the gateway answered " + std::to_string(res->status)
          + " to GET /channels";
    return std::nullopt;
  }
  return doc["channels"];
}

} // namespace

int cmd_channels(const options& opts) {
  if (opts.subcommand != "status") {
    std::cerr << "nanobot: usage: nanobot channels status [-c FILE] [-p PORT]"
              << (opts.subcommand.empty()
                    ? std::string{}
                    : " (unknown subcommand '" + opts.subcommand + "')")
              << "\n";
    return 2;
  }
  auto cfg = load_config_or_report(opts);
  if (!cfg)
    return 2;
  if (opts.port)
    cfg->gateway.port = *opts.port;
  std::string why;
  auto live = live_states(*cfg, why);
  row("CHANNEL", "STATE", "SENT/RECV/FAIL", "DETAIL");
  if (live) {
    for (const auto& s : *live) {
      auto n = [&](const char* k) {
        return std::to_string(s.value(k, int64_t{0}));
      };
      row(s.value("name", "?"), s.value("state", "?"),
          n("sent") + "/" + n("received") + "/" + n("failed"),
          s.value("detail", ""));
    }
    if (live->empty())
      std::cout << "(no channels configured under \"channels\" in "
                << cfg->config_path << ")\n";
    return 0;
  }
  for (const auto& [name, ch] : cfg->channels) {
    std::string state = !ch.enabled                     ? "disabled"
                        : find_adapter(name) == nullptr ? "unavailable"
                                                        : "enabled";
    row(name, state, "-", state == "unavailable"
                            ? "no adapter by this name in this build"
                            : "");
  }
  if (cfg->channels.empty())
    std::cout << "(no channels configured under \"channels\" in "
              << cfg->config_path << ")\n";
  std::cout << "gateway not running: " << why
            << " (states above are from the config)\n";
  return 0;
}

} // namespace nb
