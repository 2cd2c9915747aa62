// The head of a session file an append opened: what the append needs
// from it (the original's provider_state record, the updated_at date),
// read and changed through the append's own handle. Internal to
// actors/store.
#pragma once

#include <string>
#include <string_view>

#include <sys/types.h>

namespace nb::session_head {

/// The file's first two lines as far as they end within the first 64 KiB
/// (the original writes its provider_state record second). 4 KiB are read
/// first, which holds a metadata line as both programs write it.
std::string read_head(int fd, off_t size);

/// Whether the head's second line is the original's provider_state record:
/// a file that has one takes its appends as rewrites (which carry them
/// into the state).
bool holds_provider_state(std::string_view head);

/// Moves the metadata line's updated_at to now, in place (see the .cpp).
/// `fd` is the append's O_APPEND handle, `head` what read_head found.
void refresh_updated_at(int fd, std::string_view head);

} // namespace nb::session_head
