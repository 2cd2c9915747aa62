// Session @handles as the original nanobot gives them: short pronounceable
// names ("kevu", "peti") stored in each session file's metadata under
// "session_handle", allocated in the same order from the same candidate
// sequence, so both programs show one session under one name. Blocking file
// I/O: call from a worker or a detached actor.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

namespace nb {

/// The metadata key holding a session's handle (a bare name, no '@').
inline constexpr const char* session_handle_key = "session_handle";

/// Returns the bare handle for `text` (" @Kevu " → "kevu"): 4–16 ASCII
/// letters after trimming and dropping one leading '@', case-folded; nullopt
/// for anything else.
std::optional<std::string> normalize_session_handle(std::string_view text);

/// Returns the first name of the original's candidate sequence (two, then
/// three, then four syllables) that is not in `used`.
std::string allocate_session_handle(const std::set<std::string>& used);

/// Every session of the sessions folder `dir` with its handle, key → bare
/// name. Sessions without a valid, unique handle get one (oldest session
/// first, as the original orders them), written into their metadata line
/// atomically, the rest of the file unchanged, under the folder's session
/// lock held exclusively. A missing folder has no sessions.
caf::expected<std::map<std::string, std::string>>
ensure_session_handles(const std::string& dir);

} // namespace nb
