// The inbox journal's framing: each record is a 4-byte little-endian length,
// a 4-byte CRC-32 of the payload, then the payload. Pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actors/common/crc32.hpp"

namespace nb::inbox {

using nb::crc32; ///< the frames' checksum (actors/common/crc32.hpp)

/// `payload` framed for the journal.
std::string frame(std::string_view payload);

/// How the bytes after the last good frame look.
enum class tail_kind : uint8_t {
  clean,   ///< the file ends with a complete frame
  torn,    ///< a frame cut short by a crash (header or payload incomplete)
  corrupt, ///< a complete frame whose checksum does not match
};

struct frame_scan {
  std::vector<std::string_view> payloads; ///< views into the scanned bytes
  size_t good_bytes = 0; ///< the prefix made of whole, valid frames
  tail_kind tail = tail_kind::clean;
};

/// Reads frames from the start of `bytes` up to the first bad one.
frame_scan scan_frames(std::string_view bytes);

/// A frame longer than this is taken as damage, not as a record.
constexpr uint32_t max_frame_bytes = 64u << 20;

} // namespace nb::inbox
