// Tools: where the session tools find the saved sessions, and @handles
// resolved as the original resolves them (actors/store/session_handles).
// Blocking file I/O: called from tool workers and the session mail actor.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "actors/store/session_handles.hpp"
#include "actors/tools/registry.hpp"

namespace nb {

/// The sessions folder of the context's workspace, or nullopt with `error`
/// set to the text for the model.
std::optional<std::string> session_files_dir(const tool_context& ctx,
                                             std::string& error);

/// A session found by handle: its key, or the error text for the model.
struct handle_lookup {
  std::string key;
  std::string error;
};

/// Every session of `dir` by key with its bare handle (missing handles are
/// assigned and stored); "error" set when the folder cannot be read.
struct handle_table {
  std::map<std::string, std::string> by_key;
  std::string error;
};
handle_table session_handles_in(const std::string& dir);

/// The session whose handle is `name` (bare, normalised).
handle_lookup session_for_handle(const std::string& dir,
                                 const std::string& name);

} // namespace nb
