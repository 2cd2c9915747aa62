// The DingTalk inbound side: Stream mode on its own thread.
#pragma once

#include <memory>

#include "actors/channels/dingtalk/dingtalk_config.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::dingtalk {

/// POST /v1.0/gateway/connections/open (clientId, clientSecret, the robot
/// message topic) gives an endpoint and a one-time ticket; the WebSocket
/// at endpoint?ticket=... then carries the frames. SYSTEM pings are
/// answered, a SYSTEM disconnect opens a fresh connection (new ticket), a
/// drop one after a back-off. A robot message is acknowledged only once it
/// was handed on (in the inbox journal): DingTalk sends an unacknowledged
/// one again, and one seen before is acknowledged but not handed on twice.
/// Pictures and files are saved under cfg.media_dir first. Credentials
/// DingTalk refuses stop the loop with an error naming the keys.
std::unique_ptr<chan::inbound_loop>
start_stream(dingtalk_config cfg, chan::adapter_front_actor front);

} // namespace nb::dingtalk
