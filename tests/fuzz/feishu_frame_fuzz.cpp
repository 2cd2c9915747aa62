// Feishu/Lark long connection: any bytes as one protobuf frame; a decoded
// frame is encoded again and must decode to the same fields, and its
// payload goes through the fragment joiner as the socket does.
#include "actors/channels/feishu/feishu_frame.hpp"
#include "tests/fuzz/fuzz_input.hpp"

#include <cstdlib>

NB_FUZZ_ENTRY(feishu_frame) {
  std::string error;
  auto frame = nb::feishu::decode(nb::fuzz::text(data, size), error);
  if (!frame)
    return 0;
  auto again = nb::feishu::decode(nb::feishu::encode(*frame), error);
  if (!again || again->seq_id != frame->seq_id
      || again->payload != frame->payload || again->headers != frame->headers)
    std::abort();
  nb::feishu::fragment_joiner joiner;
  auto number = [](const std::string& s) {
    return std::atoi(s.substr(0, 9).c_str());
  };
  (void)joiner.add(frame->header("message_id"), number(frame->header("sum")),
                   number(frame->header("seq")), frame->payload, 0, error);
  (void)nb::feishu::ack_frame(*frame, 200, 1);
  return 0;
}
