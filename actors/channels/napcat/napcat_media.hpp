// Attachments out to NapCat as OneBot v11 message segments: pictures as
// "image", sound as "record", video as "video", anything else as NapCat's
// "file" segment. A local file travels inside the segment as base64://
// (as the original sends pictures), so it works when NapCat runs on
// another host or in a container; a link goes as is.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace nb::napcat {

/// The largest file sent inline: base64 adds a third, and WebSocket
/// servers commonly refuse frames over 16 MB.
inline constexpr int64_t napcat_inline_limit_bytes = 10LL * 1024 * 1024;

/// "image", "record", "video" or "file" for `ref` by its extension.
std::string segment_type_for(const std::string& ref);

/// The segment for `ref` (a local path or a link): "" and `seg`, or why
/// not (naming the file: missing, too large).
std::string media_segment(const std::string& ref, nlohmann::json& seg);

} // namespace nb::napcat
