// UTF-8 well-formedness: the one checker every parser of outside text uses.
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

} // namespace nb
