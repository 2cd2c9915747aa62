// The function definition a model request lists for a tool. Written once by
// whoever makes the spec (the tools' registry, an MCP server's listing, the
// runner's own tools) and carried in tool_spec::definition_json, so a turn
// joins ready texts instead of escaping every description again.
#pragma once

#include <string>
#include <vector>

#include "messages/tool.hpp"

namespace nb {

/// {"type":"function","function":{"name":..,"description":..,"parameters":..}}
/// for `spec` (its parameters text as it is; "{}" when it has none).
std::string tool_definition_json(const tool_spec& spec);

/// `spec` with its definition_json written from its other fields.
tool_spec with_definition(tool_spec spec);

/// The JSON array of the definitions of `specs` ("" when there are none):
/// each spec's own definition_json, written here only where it has none.
std::string tool_definitions_json(const std::vector<tool_spec>& specs);

} // namespace nb
