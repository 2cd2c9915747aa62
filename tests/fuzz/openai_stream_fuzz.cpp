// The OpenAI SSE decoder: bytes as they come off the socket, split into
// events, each payload applied to the accumulator, then finished; and the
// same bytes as a whole non-streamed answer.
#include "actors/provider/openai_wire.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(openai_stream) {
  auto bytes = nb::fuzz::text(data, size);
  nb::sse_splitter splitter;
  nb::stream_accumulator acc;
  // Two feeds at an input-chosen cut: events split across reads.
  auto cut = size > 0 ? data[0] % (size + 1) : 0;
  auto apply = [&](std::string_view payload) { (void) acc.apply(payload); };
  splitter.feed(std::string_view{bytes}.substr(0, cut), apply);
  splitter.feed(std::string_view{bytes}.substr(cut), apply);
  nb::model_reply out;
  acc.finish(out);
  nb::model_reply whole;
  (void) nb::parse_completion(bytes, whole);
  return 0;
}
