// Attachments out to DingTalk, as the original sends them: a local file is
// uploaded through the media upload API; a picture is then sent as
// sampleImageMsg (photoURL = the media id), anything else (and a picture
// DingTalk would not show) as sampleFile {mediaId, fileName, fileType}. A
// picture link goes as sampleImageMsg with the link itself.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/channels/dingtalk/dingtalk_api.hpp"

namespace nb::dingtalk {

/// The media upload API's limit for the kinds we send.
inline constexpr int64_t upload_limit_bytes = 20LL * 1024 * 1024;

/// The upload type for `ref` by its extension: image, voice, video or file.
std::string upload_type_for(const std::string& ref);

/// Sends one robot message: (msgKey, msgParam) -> "" or why not.
using robot_send = std::function<std::string(const std::string& msg_key,
                                             const nlohmann::json& param)>;

/// Sends the attachment `ref` (a local path or a link). "" or why not,
/// naming it.
std::string send_attachment(openapi& api, const std::string& ref,
                            const robot_send& send);

} // namespace nb::dingtalk
