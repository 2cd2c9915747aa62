#include "actors/inbox/journal_frames.hpp"

namespace nb::inbox {

namespace {

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint32_t get_u32(std::string_view in, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(in[at + i]))
         << (8 * i);
  return v;
}

} // namespace

std::string frame(std::string_view payload) {
  std::string out;
  out.reserve(payload.size() + 8);
  put_u32(out, static_cast<uint32_t>(payload.size()));
  put_u32(out, crc32(payload));
  out.append(payload);
  return out;
}

frame_scan scan_frames(std::string_view bytes) {
  frame_scan out;
  size_t at = 0;
  while (at < bytes.size()) {
    if (bytes.size() - at < 8) {
      out.tail = tail_kind::torn;
      break;
    }
    auto len = get_u32(bytes, at);
    auto sum = get_u32(bytes, at + 4);
    if (len > max_frame_bytes) {
      out.tail = tail_kind::corrupt;
      break;
    }
    if (bytes.size() - at - 8 < len) {
      out.tail = tail_kind::torn;
      break;
    }
    auto payload = bytes.substr(at + 8, len);
    if (crc32(payload) != sum) {
      // A crash can leave a full-length frame of zeros or stale bytes when
      // the file grew before the data reached the disk: still the tail.
      out.tail = at + 8 + len == bytes.size() ? tail_kind::torn
                                              : tail_kind::corrupt;
      break;
    }
    out.payloads.push_back(payload);
    at += 8 + len;
  }
  out.good_bytes = at;
  return out;
}

} // namespace nb::inbox
