// Tools: how MCP tools appear to the model. Names mcp_<server>_<tool>
// sanitised to [A-Za-z0-9_-] and at most 64 characters; input schemas
// normalised for OpenAI-style function calling.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb {

/// "mcp_" + server + "_" + tool, other characters replaced by '_', runs
/// of '_' collapsed; longer than 64: the first 55 characters, '_' and the
/// first 8 hex digits of the full name's SHA-1.
std::string mcp_tool_name(const std::string& server, const std::string& tool);

/// The schema with local $refs (#/$defs/..., #/definitions/...) inlined,
/// nullable unions (anyOf/oneOf with {"type":"null"}) turned into a type
/// list, and an object type with properties guaranteed at the top.
nlohmann::json normalize_schema(const nlohmann::json& schema);

/// Whether `tool` passes enabledTools ("*" = all; otherwise the server's
/// own tool name or the mcp_ name).
bool mcp_tool_enabled(const std::vector<std::string>& enabled,
                      const std::string& tool, const std::string& full_name);

} // namespace nb
