// The Telegram inbound side: getUpdates long polling on its own thread.
#pragma once

#include <memory>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/telegram/telegram_config.hpp"

namespace nb::telegram {

/// Polls getUpdates and sends each message to `front`. The offset moves
/// past an update only after its message was handed on, so Telegram keeps
/// (and re-sends) whatever was not; stopping confirms what was handed on.
std::unique_ptr<chan::inbound_loop>
start_poller(telegram_config cfg, chan::adapter_front_actor front);

} // namespace nb::telegram
