// The port a running gateway's channel listens on (the WebSocket channel
// and its WebUI API are started on port 0 in tests), read from the
// channel's status detail ("... :PORT/ ..."); 0 while it is not listening.
#pragma once

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include <caf/scoped_actor.hpp>

#include "actors/supervisor/runtime.hpp"

namespace nb::test {

inline int channel_port(runtime& rt, const std::string& name = "websocket") {
  caf::scoped_actor self{rt.system()};
  int port = 0;
  self->request(rt.channels(), std::chrono::seconds{10},
                channel_status_atom::value)
    .receive(
      [&](std::vector<channel_status>& all) {
        for (auto& s : all) {
          std::smatch m;
          if (s.name == name
              && std::regex_search(s.detail, m, std::regex{R"(:(\d+)/)"}))
            port = std::stoi(m[1]);
        }
      },
      [](caf::error&) {});
  return port;
}

} // namespace nb::test
