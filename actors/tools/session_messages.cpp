// list_sessions: the original's list of the other persisted sessions by
// @handle (actors/store/session_handles: allocated and stored as the
// original does).
#include <algorithm>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/session_access.hpp"

namespace nb {

namespace {

using nlohmann::json;

tool_output list_sessions_tool(const json&, const tool_context& ctx) {
  if (ctx.session_key.empty())
    return {"Error: session context is unavailable", true};
  std::string err;
  auto dir = session_files_dir(ctx, err);
  if (!dir)
    return {err, true};
  auto table = session_handles_in(*dir);
  if (!table.error.empty())
    return {table.error, true};
  std::vector<std::string> names;
  for (auto& [key, name] : table.by_key)
    if (key != ctx.session_key)
      names.push_back("@" + name);
  std::sort(names.begin(), names.end());
  return {json(names).dump(), false};
}

} // namespace

void add_session_messages(tool_registry& reg) {
  json list_schema = {{"type", "object"},
                      {"properties", json::object()},
                      {"additionalProperties", false}};
  reg.add({"list_sessions", "List other persisted sessions by @handle.",
           {}, false, false},
          list_schema,
          list_sessions_tool);
}

} // namespace nb
