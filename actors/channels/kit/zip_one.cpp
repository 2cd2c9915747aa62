#include "actors/channels/kit/zip_one.hpp"

#include <cstdint>

#include "actors/common/crc32.hpp"

namespace nb::chan {

namespace {

/// Appends `v` little-endian in `n` bytes, as ZIP records are written.
void zip_le(std::string& out, uint32_t v, int n) {
  for (int i = 0; i < n; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

/// The fields the local header and the central directory entry share:
/// version needed 2.0, UTF-8 name flag, stored, 1980-01-01 00:00, the CRC
/// and both sizes (equal when stored), the name's length, no extra field.
void zip_entry_fields(std::string& out, uint32_t crc, uint32_t size,
                      size_t name_len) {
  zip_le(out, 20, 2);
  zip_le(out, 1u << 11, 2);
  zip_le(out, 0, 2);
  zip_le(out, 0, 2);
  zip_le(out, (0u << 9) | (1u << 5) | 1u, 2);
  zip_le(out, crc, 4);
  zip_le(out, size, 4);
  zip_le(out, size, 4);
  zip_le(out, static_cast<uint32_t>(name_len), 2);
  zip_le(out, 0, 2);
}

} // namespace

std::string zip_one(const std::string& name, const std::string& bytes) {
  auto crc = crc32(bytes);
  auto size = static_cast<uint32_t>(bytes.size());
  std::string out;
  zip_le(out, 0x04034b50, 4); // local file header
  zip_entry_fields(out, crc, size, name.size());
  out += name;
  out += bytes;
  auto central_at = static_cast<uint32_t>(out.size());
  zip_le(out, 0x02014b50, 4); // central directory entry
  zip_le(out, 20, 2);         // made by: 2.0
  zip_entry_fields(out, crc, size, name.size());
  zip_le(out, 0, 2); // comment length
  zip_le(out, 0, 2); // disk
  zip_le(out, 0, 2); // internal attributes
  zip_le(out, 0, 4); // external attributes
  zip_le(out, 0, 4); // the local header's offset
  out += name;
  auto central_size = static_cast<uint32_t>(out.size()) - central_at;
  zip_le(out, 0x06054b50, 4); // end of central directory
  zip_le(out, 0, 2);
  zip_le(out, 0, 2);
  zip_le(out, 1, 2);
  zip_le(out, 1, 2);
  zip_le(out, central_size, 4);
  zip_le(out, central_at, 4);
  zip_le(out, 0, 2);
  return out;
}

} // namespace nb::chan
