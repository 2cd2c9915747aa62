// Keyed hashes for the platforms that sign what they send (a webhook's
// signature header) or want a signed request.
#pragma once

#include <string>

namespace nb::chan {

/// HMAC-SHA256 of `data` under `key`: the 32 raw bytes.
std::string hmac_sha256(const std::string& key, const std::string& data);

/// Lower-case hex of `bytes`.
std::string to_hex(const std::string& bytes);

/// Compares in time independent of where they differ (secrets, signatures).
bool equal_in_constant_time(const std::string& a, const std::string& b);

} // namespace nb::chan
