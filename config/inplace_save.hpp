// Saving config.json in place, its inode kept, for a config dir that is also
// an exec workspace. exec's sandbox then hides config.json with a bind mount
// of /dev/null on it, and the kernel detaches a mount whose mount point is
// renamed over from another mount namespace: an atomic save by rename would
// show the new file, keys and all, to a command already running. Rewriting
// the same inode keeps the mask; a recovery copy written first (fsynced, in
// a directory the sandbox hides too) keeps a crash mid-rewrite from losing
// the config. The directory's presence is what switches a config file to
// this way of saving, so every process saving it (the gateway's WebUI,
// `nanobot provider login`) agrees without knowing the gateway's workspace.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "config/atomic_file.hpp"

namespace nb {

/// The file a save of config path `path` writes: a symlink's target.
std::string config_target(const std::string& path);

/// "<directory of target>/.config-save": the recovery copy and the lock of
/// in-place saves of config file `target` (a real path, see config_target).
std::string config_save_dir(const std::string& target);

/// Whether saves of `target` keep its inode (config_save_dir exists).
bool config_saves_in_place(const std::string& target);

/// Creates config_save_dir(target) (0700): every later save of `target`
/// keeps its inode. "" or why not. Idempotent.
std::string save_config_in_place_from_now(const std::string& target);

/// Writes `text` into `target`'s own inode (mode 0600) under the save lock:
/// the recovery copy first (complete and fsynced before `target` is
/// touched), then `target` rewritten and fsynced, then the copy removed.
/// With `expected`: `kept`, nothing written, when `target` no longer holds
/// it (a missing file holds ""). Never throws.
write_result rewrite_config_in_place(const std::string& target,
                                     std::string_view text,
                                     const std::string_view* expected);

/// The text of config path `path`; nullopt when it cannot be read (a missing
/// file reads as ""). When its saves keep the inode, read under the save
/// lock (never half a rewrite), after finishing a save a crash interrupted:
/// the copy is written back into the file (a file changed since the copy
/// was made that differs from it and parses may be a hand edit: its text is
/// kept beside the copy as config.json.before-recovery first, with a
/// warning in the log).
std::optional<std::string> read_config_text(const std::string& path);

} // namespace nb
