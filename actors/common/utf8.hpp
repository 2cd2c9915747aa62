// UTF-8 well-formedness and cutting: the one checker every parser of outside
// text uses, and the cuts that never split a character.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace nb {

/// Length of the well-formed UTF-8 sequence starting at s[i] (1-4), or 0
/// when the bytes there are not one (a stray continuation byte, a cut
/// sequence, an overlong form, a surrogate or a value past U+10FFFF).
size_t utf8_sequence_length(std::string_view s, size_t i);

/// Offset of the first byte of `s` that is not well-formed UTF-8, or
/// nullopt when all of it is.
std::optional<size_t> first_invalid_utf8(std::string_view s);

/// Returns the longest prefix of `s` of at most `max_bytes` that does not
/// split a multi-byte sequence.
std::string_view utf8_head(std::string_view s, size_t max_bytes);

/// Returns the longest suffix of `s` of at most `max_bytes` that does not
/// start inside a multi-byte sequence.
std::string_view utf8_tail(std::string_view s, size_t max_bytes);

} // namespace nb
