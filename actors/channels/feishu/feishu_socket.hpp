// The Feishu inbound side: the WebSocket long connection on its own thread.
#pragma once

#include <memory>

#include "actors/channels/feishu/feishu_config.hpp"
#include "actors/channels/kit/adapter.hpp"

namespace nb::feishu {

/// POST /callback/ws/endpoint (AppID, AppSecret) gives the socket's URL and
/// its ClientConfig; then pbbp2 frames: a ping every PingInterval, pongs
/// read for new settings, fragmented payloads joined, and each data frame
/// acknowledged ({"code":200}, biz_rt) only once its message is in the
/// inbox journal (an unacknowledged one comes again; a message id seen
/// before is not handed on twice). Media are saved under cfg.media_dir;
/// reactEmoji is put on every message access control let in. A drop opens
/// a fresh connection with back-off; rejected credentials stop it with an
/// error naming the keys.
std::unique_ptr<chan::inbound_loop>
start_socket(feishu_config cfg, chan::adapter_front_actor front);

} // namespace nb::feishu
