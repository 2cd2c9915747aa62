// Base64 (RFC 4648, standard alphabet): one encoder and one decoder for every
// part that meets it (mail bodies and headers, Chromium's screenshots).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nb {

/// `in` in base64 with '=' padding.
std::string base64_encode(std::string_view in);

/// The bytes `in` stands for. White space (MIME breaks its lines) is
/// skipped, padding is optional; any other byte outside the alphabet, data
/// after the padding, or a lone symbol at the end gives nullopt.
std::optional<std::string> base64_decode(std::string_view in);

} // namespace nb
