// Attachments out to QQ (rich media): the file goes up in base64 to the
// chat's /files endpoint and comes back as a file_info, which a msg_type 7
// message then shows.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "actors/channels/qq/qq_api.hpp"

namespace nb::qq {

/// Files sent inline in base64 are held to 10 MB by QQ.
inline constexpr int64_t qq_upload_limit_bytes = 10LL * 1024 * 1024;

/// QQ's file_type for `path` by its extension: 1 picture, 2 video (mp4),
/// 3 voice (silk, wav, mp3, flac), 4 any other file.
int qq_file_type(const std::string& path);

/// Uploads the local file `path` to the chat and posts it as a reply to
/// `msg_id` with the msg_seq `next_seq()` gives. "" or why not (naming
/// the file).
std::string send_qq_attachment(qq_api& api, bool group,
                               const std::string& target,
                               const std::string& path,
                               const std::string& msg_id,
                               const std::function<int64_t()>& next_seq);

} // namespace nb::qq
