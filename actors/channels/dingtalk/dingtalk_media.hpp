// Attachments out to DingTalk, as the original sends them: a local file is
// uploaded through the media upload API; a picture is then sent as
// sampleImageMsg (photoURL = the media id), anything else (and a picture
// DingTalk would not show) as sampleFile {mediaId, fileName, fileType}. A
// picture link goes as sampleImageMsg with the link itself; any other link
// (and a picture link DingTalk refused) is fetched under the SSRF guard,
// capped, and uploaded like a file. HTML goes zipped (DingTalk refuses it
// raw).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/channels/dingtalk/dingtalk_api.hpp"
#include "actors/channels/dingtalk/dingtalk_config.hpp"
#include "actors/tools/link_download.hpp"

namespace nb::dingtalk {

/// The media upload API's limit for the kinds we send; also the cap on a
/// fetched link, as the original has it.
inline constexpr int64_t upload_limit_bytes = 20LL * 1024 * 1024;

/// The upload type for `ref` by its extension: image, voice, video or file.
std::string upload_type_for(const std::string& ref);

/// Sends one robot message: (msgKey, msgParam) -> "" or why not.
using robot_send = std::function<std::string(const std::string& msg_key,
                                             const nlohmann::json& param)>;

/// How links in a reply are fetched: the guard's policy (with
/// tools.ssrfWhitelist) and the redirect rules of `cfg`.
struct link_fetcher {
  explicit link_fetcher(const dingtalk_config& cfg);
  ssrf_policy policy;
  link_download_rules rules;
};

/// Sends the attachment `ref` (a local path or a link). "" or why not,
/// naming it. Blocking: the sender's own thread.
std::string send_attachment(openapi& api, const std::string& ref,
                            const link_fetcher& links, const robot_send& send);

} // namespace nb::dingtalk
