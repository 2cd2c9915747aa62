// The Markdown renderers: Telegram's HTML and Slack's mrkdwn.
#include "actors/channels/kit/markdown_html.hpp"
#include "actors/channels/slack/slack_event.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(markdown) {
  auto md = nb::fuzz::text(data, size);
  (void) nb::chan::markdown_to_html(md);
  (void) nb::slack::to_mrkdwn(md);
  return 0;
}
