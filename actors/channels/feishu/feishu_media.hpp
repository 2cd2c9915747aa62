// Attachments out to Feishu: a picture goes up through im/v1/images and is
// sent as an "image" message; any other file through im/v1/files and is
// sent as "audio" (opus), "media" (video) or "file", as the original does.
#pragma once

#include <string>

#include "actors/channels/feishu/feishu_api.hpp"

namespace nb::feishu {

/// Feishu's upload limits: 10 MB for a picture, 30 MB for a file.
inline constexpr int64_t image_limit_bytes = 10LL * 1024 * 1024;
inline constexpr int64_t file_limit_bytes = 30LL * 1024 * 1024;

/// The message that shows an uploaded attachment.
struct media_message {
  std::string msg_type; ///< image | audio | media | file
  std::string content;  ///< {"image_key": ...} or {"file_key": ...}
};

/// Whether Feishu takes `path` as a picture (by its extension).
bool is_picture(const std::string& path);

/// The im/v1/files file_type for `path`: opus, mp4, pdf, doc, xls, ppt or
/// stream.
std::string file_type_for(const std::string& path);

/// Reads the local file `path` (under the limit for its kind) and uploads
/// it. "" and `out` set, or why not (naming the file).
std::string upload_media(open_api& api, const std::string& path,
                         media_message& out);

} // namespace nb::feishu
