// NapCat (OneBot v11) events: any JSON as one event, as a message, a
// welcome and an action's answer, with the bot's id known.
#include "actors/channels/napcat/napcat_event.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(napcat) {
  auto doc = nb::fuzz::json(nb::fuzz::text(data, size));
  if (doc.is_discarded())
    return 0;
  nb::napcat::onebot_view view;
  view.self_id = "10001";
  view.note_sent("555");
  std::string why;
  if (auto m = nb::napcat::read_message(doc, view, "napcat", why)) {
    nb::napcat::napcat_config cfg;
    (void)nb::napcat::should_answer(cfg, *m, 0.5);
  }
  (void)nb::napcat::read_welcome(doc, "napcat");
  (void)nb::napcat::answer_echo(doc);
  if (doc.is_object())
    (void)nb::napcat::id_text(doc, "user_id");
  return 0;
}
