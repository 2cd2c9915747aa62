// DingTalk Stream mode: any text as one stream frame; a frame's data as a
// bot message (both group and one-to-one settings), and the replies built.
#include "actors/channels/dingtalk/dingtalk_frame.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(dingtalk) {
  auto text = nb::fuzz::text(data, size);
  std::string why;
  std::string payload = text;
  if (auto frame = nb::dingtalk::read_frame(text, why)) {
    (void)nb::dingtalk::ack_frame(*frame);
    (void)nb::dingtalk::pong_frame(*frame);
    payload = frame->data;
  }
  nb::dingtalk::dingtalk_config cfg;
  cfg.client_id = "ding-app";
  (void)nb::dingtalk::read_bot_message(payload, cfg, why);
  cfg.group_user_isolation = true;
  cfg.disable_private_chat = true;
  (void)nb::dingtalk::read_bot_message(payload, cfg, why);
  return 0;
}
