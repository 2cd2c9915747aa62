// Tool-argument coercion: a schema and arguments (split at the first NUL),
// cast to the schema and validated against it.
#include "actors/tools/schema.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(tool_args) {
  auto [schema_text, args_text] = nb::fuzz::split(nb::fuzz::text(data, size));
  auto schema = nb::fuzz::json(schema_text);
  auto args = nb::fuzz::json(args_text);
  if (schema.is_discarded() || args.is_discarded())
    return 0;
  auto cast = nb::cast_to_schema(args, schema);
  (void) nb::validate_against_schema(cast, schema);
  return 0;
}
