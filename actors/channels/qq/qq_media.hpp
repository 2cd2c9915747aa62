// Attachments out to QQ (rich media): the file goes up in base64 to the
// chat's /files endpoint and comes back as a file_info, which a msg_type 7
// message then shows. A link is fetched first (under the SSRF guard, held
// to the same 10 MB) and goes up the same way, as the original does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "actors/channels/qq/qq_api.hpp"
#include "actors/tools/link_download.hpp"

namespace nb::qq {

/// Files sent inline in base64 are held to 10 MB by QQ.
inline constexpr int64_t qq_upload_limit_bytes = 10LL * 1024 * 1024;

/// QQ's file_type for `path` by its extension: 1 picture, 2 video (mp4),
/// 3 voice (silk, wav, mp3, flac), 4 any other file.
int qq_file_type(const std::string& path);

/// How links are fetched: the guard's policy with tools.ssrfWhitelist,
/// redirects followed (each hop checked), the upload limit as the cap.
struct qq_link_fetcher {
  explicit qq_link_fetcher(const std::vector<std::string>& ssrf_whitelist);
  ssrf_policy policy;
  link_download_rules rules;
};

/// The name `ref` (a path or a link) is shown under: the last path element
/// without a link's query.
std::string qq_attachment_name(const std::string& ref);

/// Uploads `ref` (a local file, or a link fetched first) to the chat and
/// posts it as a reply to `msg_id` with the msg_seq `next_seq()` gives. ""
/// or why not (naming the file). Blocking: the sender's own thread.
std::string send_qq_attachment(qq_api& api, bool group,
                               const std::string& target,
                               const std::string& ref,
                               const qq_link_fetcher& links,
                               const std::string& msg_id,
                               const std::function<int64_t()>& next_seq);

} // namespace nb::qq
