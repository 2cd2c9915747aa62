// Matrix's payload parser: any JSON as a /sync answer.
#include "actors/channels/matrix/matrix_sync.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(matrix) {
  auto doc = nb::fuzz::json(nb::fuzz::text(data, size));
  if (doc.is_discarded())
    return 0;
  (void) nb::matrix::read_sync(doc, "@bot:example.org", "matrix");
  return 0;
}
