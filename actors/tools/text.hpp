// Tools: UTF-8 and text helpers shared by the file and shell tools.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "actors/common/utf8.hpp" // utf8_head, utf8_tail

namespace nb {

/// Returns `s` with every invalid UTF-8 sequence replaced by U+FFFD.
std::string sanitize_utf8(std::string_view s);

/// Returns the number of code points in `s` (bytes that do not continue a
/// multi-byte sequence).
size_t utf8_length(std::string_view s);

/// Returns whether `data` looks binary: a NUL byte, or many control bytes,
/// in its first 8 KiB.
bool looks_binary(std::string_view data);

/// Returns a MIME type recognised from magic bytes (images, PDF, archives,
/// ELF), or "" when none matches.
std::string sniff_mime(std::string_view data);

/// Replaces every "\r\n" in `s` with "\n".
std::string crlf_to_lf(std::string_view s);

/// Returns `s` cut to about `max_chars` bytes with "..." appended when cut,
/// and with newlines shown as "\n"; for quoting model input in errors.
std::string preview(std::string_view s, size_t max_chars = 120);

} // namespace nb
