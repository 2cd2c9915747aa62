// Tools: the workspace boundary. Resolves user paths to real paths with
// symlinks followed component by component (dangling ones too), and checks
// containment by path components, not by string prefix.
#pragma once

#include <string>

#include "actors/tools/registry.hpp"

namespace nb {

/// A resolved path, or an error text for the model.
struct path_result {
  std::string path;
  std::string error;
  bool ok() const {
    return error.empty();
  }
};

/// Longest path accepted, in bytes (Linux PATH_MAX minus the NUL).
inline constexpr size_t max_path_bytes = 4095;
/// Symlinks followed while resolving one path before giving up.
inline constexpr int max_symlink_hops = 40;

/// Appended to boundary errors so the model does not try to get around it.
extern const char* const boundary_note;

/// Returns `path` with a leading "~" or "~user" expanded ("~user" of an
/// unknown user stays as it is, as in the shell).
std::string expand_user(const std::string& path);

/// Returns `path` ('~' expanded) made absolute against `base`, without
/// touching the file system.
std::string absolute_path(const std::string& path, const std::string& base);

/// Resolves `path` (relative: against `base`) to an absolute real path.
/// Symlinks are followed one component at a time, dangling ones included,
/// at most max_symlink_hops times; components that do not exist are kept
/// as they are. Rejects NUL bytes and overlong paths or components.
path_result resolve_real_path(const std::string& path, const std::string& base);

/// Returns whether the normalised absolute `path` is `root` or lies below
/// it, comparing whole components (/w/ws-evil is not inside /w/ws).
bool path_within(const std::string& path, const std::string& root);

/// Returns whether `path` names a device: anything under /dev/, or an open
/// descriptor under /proc/<pid>/fd/.
bool is_device_path(const std::string& path);

/// Resolves a file tool's `user_path` under `ctx`: relative paths anchor at
/// the workspace; device paths are refused always; with
/// restrict_to_workspace the real path must lie inside the workspace.
/// `action` ("Reading", "Writing", ...) words the device error.
path_result resolve_tool_path(const std::string& user_path,
                              const tool_context& ctx, const char* action);

} // namespace nb
