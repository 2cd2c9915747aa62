// Tools: the JSON Schema subset tool parameters use, with nanobot's safe
// casts ("5" -> 5 for an integer) applied before validation.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb {

/// Returns `value` with lossless casts applied where `schema` asks for
/// another type: integer and number from numeric strings (and integral
/// floats for integers), boolean from "true"/"false"/"yes"/"no"/"1"/"0",
/// string from numbers. Anything else is returned unchanged, for
/// validate_against_schema to report.
nlohmann::json cast_to_schema(const nlohmann::json& value,
                              const nlohmann::json& schema);

/// Returns the ways `value` breaks `schema` (empty: valid). Understands
/// type (or [type, "null"]), nullable, enum, minimum, maximum, minLength,
/// maxLength, properties, required, additionalProperties, items, minItems,
/// maxItems. Non-finite numbers are rejected. `path` names the value in
/// messages ("" = the top-level parameter object).
std::vector<std::string> validate_against_schema(const nlohmann::json& value,
                                                 const nlohmann::json& schema,
                                                 const std::string& path = "");

} // namespace nb
