#include "actors/tools/session_access.hpp"

#include "actors/store/session_files.hpp"

namespace nb {

std::optional<std::string> session_files_dir(const tool_context& ctx,
                                             std::string& error) {
  if (ctx.config_dir.empty()) {
    error = "Error: session history is not available here";
    return std::nullopt;
  }
  auto dir = resolve_sessions_dir(ctx.config_dir, ctx.workspace);
  if (!dir) {
    error = "Error: " + store_error_text(dir.error());
    return std::nullopt;
  }
  return *dir;
}

handle_table session_handles_in(const std::string& dir) {
  auto all = ensure_session_handles(dir);
  if (!all)
    return {{}, "Error: " + store_error_text(all.error())};
  return {std::move(*all), {}};
}

handle_lookup session_for_handle(const std::string& dir,
                                 const std::string& name) {
  auto table = session_handles_in(dir);
  if (!table.error.empty())
    return {{}, table.error};
  for (auto& [key, handle] : table.by_key)
    if (handle == name)
      return {key, {}};
  return {{}, "Error: session @" + name + " was not found"};
}

} // namespace nb
