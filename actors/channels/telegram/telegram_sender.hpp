// The Telegram outbound side: sendMessage with HTML, streaming by editing
// one message, in a detached actor (every call blocks).
#pragma once

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/telegram/telegram_config.hpp"

namespace nb::telegram {

/// Spawns the sender detached. Final replies and progress lines are sent
/// as HTML rendered from Markdown (plain text when Telegram refuses the
/// HTML), cut at 4 000 bytes; deltas of one stream grow one message by
/// editMessageText at most every streamEditInterval; the stream's end (or
/// the streamed final reply) gives the message its rendered text.
chan::sender_actor spawn_sender(caf::actor_system& sys, telegram_config cfg);

} // namespace nb::telegram
