// The Slack inbound side: Socket Mode on its own thread.
#pragma once

#include <memory>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/slack/slack_config.hpp"

namespace nb::slack {

/// auth.test (the bot's user id), then apps.connections.open and the
/// WebSocket it names: each envelope is acknowledged once its message was
/// handed on (Slack re-sends unacknowledged ones; a message seen before is
/// not handed on twice); "disconnect" or a drop opens a fresh connection.
std::unique_ptr<chan::inbound_loop>
start_socket(slack_config cfg, chan::adapter_front_actor front);

} // namespace nb::slack
