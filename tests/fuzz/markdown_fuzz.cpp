// The Markdown renderers: Telegram's HTML and Slack's mrkdwn.
#include "actors/channels/kit/markdown_html.hpp"
#include "actors/channels/slack/slack_event.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto md = nb::fuzz::text(data, size);
  (void) nb::chan::markdown_to_html(md);
  (void) nb::slack::to_mrkdwn(md);
  return 0;
}
