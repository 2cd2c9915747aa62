// Feishu/Lark event payloads: any JSON as one event, with and without the
// bot's own id known; a "post" body's rich text on its own as well.
#include "actors/channels/feishu/feishu_event.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(feishu_event) {
  auto doc = nb::fuzz::json(nb::fuzz::text(data, size));
  if (doc.is_discarded())
    return 0;
  nb::feishu::event_context ctx;
  (void)nb::feishu::parse_event(doc, ctx);
  ctx.bot_open_id = "ou_bot";
  ctx.topic_isolation = false;
  (void)nb::feishu::parse_event(doc, ctx);
  std::vector<std::string> image_keys;
  (void)nb::feishu::post_text(doc, image_keys);
  return 0;
}
