// CRC-32 (IEEE 802.3, the zlib and ZIP one): the inbox journal's frame
// checksum and a ZIP entry's.
#pragma once

#include <cstdint>
#include <string_view>

namespace nb {

/// CRC-32 of `data` (0xCBF43926 for "123456789").
uint32_t crc32(std::string_view data);

} // namespace nb
