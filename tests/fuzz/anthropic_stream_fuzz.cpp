// The Anthropic stream decoder: SSE bytes split into events, each payload
// applied, then finished; and the same bytes as a whole Messages answer.
#include "actors/provider/anthropic_wire.hpp"
#include "actors/provider/openai_wire.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(anthropic_stream) {
  auto bytes = nb::fuzz::text(data, size);
  nb::sse_splitter splitter;
  nb::anthropic_stream stream;
  splitter.feed(bytes, [&](std::string_view payload) {
    (void) stream.apply(payload);
  });
  nb::model_reply out;
  stream.finish(out);
  nb::model_reply whole;
  (void) nb::parse_anthropic_message(bytes, whole);
  return 0;
}
