// The Markdown renderers: Telegram's HTML, Slack's mrkdwn and the terminal
// chat's ANSI (narrow, so wrapping and the code box are exercised).
#include "actors/channels/kit/markdown_html.hpp"
#include "actors/cli/term_markdown.hpp"
#include "actors/channels/slack/slack_event.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(markdown) {
  auto md = nb::fuzz::text(data, size);
  (void) nb::chan::markdown_to_html(md);
  (void) nb::slack::to_mrkdwn(md);
  (void)nb::term::render_markdown(md, 12);
  return 0;
}
