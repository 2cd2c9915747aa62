// Saving config.json: atomically, 0600 (it holds keys), and without losing
// an edit someone else saved meanwhile (by hand, or the other program).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "config/atomic_file.hpp"

namespace nb {

/// Writes config text atomically (temp file, fsync, rename, directory
/// fsync) with mode 0600 whatever the old file's mode was: it holds keys;
/// where the config dir is an exec workspace, in place with a recovery copy
/// instead, keeping the inode the sandbox's mask is on (inplace_save.hpp). A
/// symlinked config.json is written where the link points. With `read_as`
/// (the text the change was made from), nothing is written and the outcome
/// is `kept` when the file no longer holds that text. Never throws.
write_result save_config_text(const std::string& path, std::string_view text,
                              std::optional<std::string_view> read_as = {});

/// Builds the new text from the file's current text ("" = no file) and
/// saves it; when the file changed between that read and the save, builds
/// it again from what the file holds now, so a hand edit made meanwhile is
/// kept along with this one. `make` returns the text to save, or nullopt
/// to give up (`kept`; the caller keeps its own reason); it may run more
/// than once, so it only computes. `failed` when writing fails or the file
/// changed under every one of five attempts.
write_result edit_config_file(
  const std::string& path,
  const std::function<std::optional<std::string>(const std::string& current)>&
    make);

} // namespace nb
