// The session JSONL reader: any bytes as a session file's text.
#include "actors/store/session_format.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(session_jsonl) {
  auto parsed = nb::session_format::parse_lines(nb::fuzz::text(data, size));
  if (parsed.has_meta)
    (void) parsed.meta.dump(-1, ' ', false,
                            nlohmann::ordered_json::error_handler_t::replace);
  return 0;
}
